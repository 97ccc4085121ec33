// DJL (ai.djl:api) allocates the header size a file claims, before comparing
// it with the input.
//
//   java -cp '.matrix/djl/lib/*' matrix/repro/djl_allocates_n.java FILE
//
// Calls NDList.decode as open_djl.java does and measures the heap it used: the
// peak of every heap pool during the call, above what was in use before it.
// More than 64 MiB for the file (the allowance safetensors-spec's conformance
// suite gives a reader of a small file) is reported on stderr with exit
// status 1. DJL sizes its header buffer from the claim before it reads it
// (NDList.decodeSafetensors: `int len = Math.toIntExact(...getLong());
// buf = new byte[len]; dis.readFully(buf);`), so a 10-byte file makes it
// allocate up to 2 GiB - 1 bytes: run with -Xmx3g to see a claim of
// 2,000,000,000 bytes allocated rather than refused by the heap limit.
import ai.djl.ndarray.NDList;
import ai.djl.util.passthrough.PassthroughNDManager;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

public class djl_allocates_n {
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
        long length = Files.size(Path.of(args[0]));
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            pool.resetPeakUsage();
        }
        long before = heap(false);
        String outcome = "accepted";
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            NDList.decode(PassthroughNDManager.INSTANCE, in);
        } catch (RuntimeException e) {
            outcome = "rejected: " + e;
        }
        long used = heap(true) - before;
        System.out.println("file of " + length + " bytes: " + outcome
                + "; heap used during the call: " + (used >> 20) + " MiB");
        if (used > ALLOWANCE) {
            System.err.println("allocated " + (used >> 20) + " MiB of heap for a file of "
                    + length + " bytes (allowance " + (ALLOWANCE >> 20) + " MiB)");
            System.exit(1);
        }
        System.out.println(outcome.equals("accepted") ? "accepted" : "rejected");
    }
}
