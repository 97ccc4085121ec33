// Jlama (com.github.tjake:jlama-core) allocates the header size a file claims,
// before comparing it with the file.
//
//   .matrix/jlama/bin/java -cp '.matrix/jlama/lib/*' matrix/repro/jlama_allocates_n.java FILE
//
// (a JDK 21 or later). Calls SafeTensorSupport.readWeights as open_jlama.java
// does and measures the heap it used: the peak of every heap pool during the
// call, above what was in use before it. More than 64 MiB for the file (the
// allowance safetensors-spec's conformance suite gives a reader of a small
// file) is reported on stderr with exit status 1. On a 10-byte file that
// claims a 100,000,001-byte header, Jlama allocates the whole claimed header
// before BufferUnderflowException.
import com.github.tjake.jlama.safetensors.SafeTensorSupport;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

public class jlama_allocates_n {
    static final long ALLOWANCE = 64L << 20;

    static long heap(boolean peak) {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += (peak ? pool.getPeakUsage() : pool.getUsage()).getUsed();
            }
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]))) {
            System.gc();
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                pool.resetPeakUsage();
            }
            long before = heap(false);
            String outcome = "accepted";
            try {
                SafeTensorSupport.readWeights(
                        channel.map(FileChannel.MapMode.READ_ONLY, 0,
                            Math.min(channel.size(), Integer.MAX_VALUE)));
            } catch (RuntimeException e) {
                outcome = "rejected: " + e;
            }
            long used = heap(true) - before;
            System.out.println("file of " + channel.size() + " bytes: " + outcome
                    + "; heap used during the call: " + (used >> 20) + " MiB");
            if (used > ALLOWANCE) {
                System.err.println("allocated " + (used >> 20) + " MiB of heap for a file of "
                        + channel.size() + " bytes (allowance " + (ALLOWANCE >> 20) + " MiB)");
                System.exit(1);
            }
            System.out.println(outcome.equals("accepted") ? "accepted" : "rejected");
        }
    }
}
