// Jlama (com.github.tjake:jlama-core): SafeTensorSupport.readWeights on a
// read-only map of a file, then every tensor's header entry.
//
//   .matrix/jlama/bin/java -cp '.matrix/jlama/lib/*' matrix/repro/open_jlama.java FILE
//
// (a JDK 21 or later). Prints each tensor's dtype, shape and data_offsets,
// then "accepted"; whatever readWeights throws is left uncaught. One mapping
// holds at most 2 GiB - 1 bytes, so a larger file is mapped that far: the
// header, which Jlama judges first, is at its start.
import com.github.tjake.jlama.safetensors.SafeTensorSupport;
import com.github.tjake.jlama.safetensors.TensorInfo;
import com.github.tjake.jlama.safetensors.Weights;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

public class open_jlama {
    public static void main(String[] args) throws Exception {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]))) {
            Weights weights = SafeTensorSupport.readWeights(
                    channel.map(FileChannel.MapMode.READ_ONLY, 0,
                            Math.min(channel.size(), Integer.MAX_VALUE)));
            for (Map.Entry<String, TensorInfo> e : weights.tensorInfoMap().entrySet()) {
                TensorInfo info = e.getValue();
                System.out.println(e.getKey() + ": " + info.dType + " " + Arrays.toString(info.shape)
                        + ", data_offsets " + Arrays.toString(info.dataOffsets));
            }
        }
        System.out.println("accepted");
    }
}
