// A command-protocol-2 wrapper around Jlama's safetensors reader
// (com.github.tjake:jlama-core): SafeTensorSupport.readWeights(buffer) over a
// read-only map of the file, as Jlama's own loader does, then the Weights'
// metadata() and tensorInfoMap(). Header-only: Weights.load converts what it
// returns (F16 and BF16 to F32; I8 needs a ".qb" scale tensor beside it), so
// the bytes are not the file's. metadata() is an empty map when the file has
// none, so it cannot tell absent from {}. Jlama refuses with a plain
// RuntimeException of its own (wrapping Jackson's parse errors) or an
// IllegalArgumentException; the runtime's errors (BufferUnderflowException,
// NullPointerException, ...) are unexpected exceptions and escape, as in
// every row (docs/howto/read-the-results-matrix.md, "Errors and outcomes"),
// and an Error (stack overflow, out of memory) ends the JVM.
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tjake.jlama.safetensors.SafeTensorSupport;
import com.github.tjake.jlama.safetensors.TensorInfo;
import com.github.tjake.jlama.safetensors.Weights;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class JlamaReader {
    // Jackson (Jlama's own JSON library) writes the answer; escaped ASCII
    // keeps a lone surrogate in a name as \ud800 instead of a '?'.
    private static final ObjectMapper JSON =
            new ObjectMapper().configure(JsonGenerator.Feature.ESCAPE_NON_ASCII, true);

    private JlamaReader() {}

    static void say(Map<String, Object> answer, int code) throws Exception {
        byte[] bytes = (JSON.writeValueAsString(answer) + "\n").getBytes(StandardCharsets.US_ASCII);
        System.out.write(bytes, 0, bytes.length);
        System.out.flush();
        System.exit(code);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--describe")) {
            // TensorInfo narrows each dimension to an int (Ints.checkedCast:
            // "Out of range: 4294967296"), and Jackson reads every number into
            // a long: limits SPEC 1.6 allows, declared.
            say(Map.of("protocol", 2, "name", "Jlama SafeTensorSupport.readWeights",
                    "version", System.getProperty("matrix.version"),
                    "capabilities", Map.of("header_only", true, "metadata_presence", false,
                            "read_dtypes", List.of("BOOL", "U8", "I8", "I16", "U16", "F16", "BF16",
                                    "I32", "U32", "F32", "F64", "I64", "U64"),
                            "max_dimension", Integer.MAX_VALUE, "max_number", Long.MAX_VALUE)), 0);
        }
        Weights weights;
        try (FileChannel channel = FileChannel.open(Path.of(args[0]))) {
            // one mapping holds at most 2 GiB - 1 bytes; Jlama's own loader
            // (SafeTensorIndex) maps the header region first and the data in
            // splits, so a larger file is mapped as far as Java allows: its
            // header is what Jlama judges first
            long size = Math.min(channel.size(), Integer.MAX_VALUE);
            MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            try {
                weights = SafeTensorSupport.readWeights(map);
            } catch (RuntimeException e) {
                // its own `new RuntimeException(...)`, not one of the runtime's subclasses
                if (e.getClass() != RuntimeException.class && !(e instanceof IllegalArgumentException)) {
                    throw e;
                }
                say(Map.of("result", "rejected", "reason", e.getClass().getName() + ": " + e.getMessage()), 1);
                return;
            }
        }
        Map<String, Object> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, TensorInfo> e : weights.tensorInfoMap().entrySet()) {
            TensorInfo info = e.getValue();
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("dtype", info.dType == null ? null : info.dType.name());
            entry.put("shape", info.shape == null ? null : Arrays.stream(info.shape).boxed().toList());
            tensors.put(e.getKey(), entry);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("result", "accepted");
        answer.put("metadata", weights.metadata());
        answer.put("tensors", tensors);
        say(answer, 0);
    }
}
