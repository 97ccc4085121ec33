// DJL (ai.djl:api): NDList.decode on a file's bytes, with the engine-free
// PassthroughNDManager, then every array.
//
//   java -cp '.matrix/djl/lib/*' matrix/repro/open_djl.java FILE
//
// Prints each array's name, dtype, shape and byte length, then "accepted";
// whatever decode throws is left uncaught.
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.util.passthrough.PassthroughNDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

public class open_djl {
    public static void main(String[] args) throws Exception {
        byte[] file = Files.readAllBytes(Path.of(args[0]));
        for (NDArray array : NDList.decode(PassthroughNDManager.INSTANCE, file)) {
            System.out.println(array.getName() + ": " + array.getDataType().asSafetensors() + " "
                    + Arrays.toString(array.getShape().getShape()) + ", "
                    + array.toByteBuffer().remaining() + " bytes");
        }
        System.out.println("accepted");
    }
}
