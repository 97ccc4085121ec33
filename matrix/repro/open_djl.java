// DJL (ai.djl:api): NDList.decode on a stream of the file, as a DJL user loads
// one from disk, with the engine-free PassthroughNDManager, then every array.
//
//   java -cp '.matrix/djl/lib/*' matrix/repro/open_djl.java FILE
//
// Prints each array's name, dtype, shape and byte length, then "accepted";
// whatever decode throws is left uncaught.
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.util.passthrough.PassthroughNDManager;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

public class open_djl {
    public static void main(String[] args) throws Exception {
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            for (NDArray array : NDList.decode(PassthroughNDManager.INSTANCE, in)) {
                System.out.println(array.getName() + ": " + array.getDataType().asSafetensors()
                        + " " + Arrays.toString(array.getShape().getShape()) + ", "
                        + array.toByteBuffer().remaining() + " bytes");
            }
        }
        System.out.println("accepted");
    }
}
