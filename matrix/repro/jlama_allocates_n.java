// Jlama (com.github.tjake:jlama-core) allocates the header size a file claims,
// before comparing it with the file.
//
//   .matrix/jlama/bin/java -cp '.matrix/jlama/lib/*' matrix/repro/jlama_allocates_n.java [FILE]
//
// (a JDK 21 or later). Calls SafeTensorSupport.readWeights as open_jlama.java
// does and measures the heap it used: the peak of every heap pool during the
// call, above what was in use before it. More than 64 MiB for the file (the
// allowance safetensors-spec's conformance suite gives a reader of a small
// file) is reported on stderr with exit status 1. Without FILE it builds two
// 10-byte files, claiming headers of 100,000,001 bytes and of 2^30 bytes
// (Jlama's own cap, MAX_HEADER_LENGTH): Jlama allocates the whole claimed
// header before BufferUnderflowException, about 1 GiB for the second (give
// the JVM -Xmx2g to see it; under a smaller heap it is OutOfMemoryError).
import com.github.tjake.jlama.safetensors.SafeTensorSupport;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
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
        if (args.length > 0) {
            System.exit(measure(Path.of(args[0])) ? 1 : 0);
        }
        boolean over = false;
        for (long claimed : new long[] {100_000_001L, 1L << 30}) {
            Path file = Files.createTempFile("jlama-claims-", ".safetensors");
            ByteBuffer bytes = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
            bytes.putLong(claimed).put((byte) '{').put((byte) '}');
            Files.write(file, bytes.array());
            try {
                over |= measure(file);
            } finally {
                Files.delete(file);
            }
        }
        System.exit(over ? 1 : 0);
    }

    // whether the call used more heap than the allowance
    static boolean measure(Path path) throws Exception {
        try (FileChannel channel = FileChannel.open(path)) {
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
                return true;
            }
            System.out.println(outcome.equals("accepted") ? "accepted" : "rejected");
            return false;
        }
    }
}
