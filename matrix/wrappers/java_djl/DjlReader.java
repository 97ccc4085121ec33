// A command-protocol-2 wrapper around DJL's safetensors decoder (ai.djl:api):
// NDList.decode(manager, bytes) with the PassthroughNDManager, which needs no
// native engine. DJL sniffs the format from the bytes (byte 8 = '{' means
// safetensors) and does not keep __metadata__, so every answer says null.
// An exception from decode is DJL's refusal; anything else is a crash.
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.util.passthrough.PassthroughNDManager;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;

public final class DjlReader {
    private DjlReader() {}

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static String sha256(ByteBuffer bytes) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(bytes.duplicate());
        StringBuilder hex = new StringBuilder();
        for (byte b : md.digest()) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    static void say(String line, int code) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        System.out.write(bytes, 0, bytes.length);
        System.out.flush();
        System.exit(code);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--describe")) {
            say("{\"protocol\":2,\"name\":\"DJL ai.djl:api NDList.decode\",\"version\":\""
                    + System.getProperty("matrix.version") + "\",\"capabilities\":{\"read_dtypes\":"
                    + "[\"F64\",\"F32\",\"F16\",\"BF16\",\"I64\",\"I32\",\"I8\",\"U8\",\"BOOL\"]}}", 0);
        }
        byte[] file = Files.readAllBytes(Path.of(args[0]));
        NDList list;
        try {
            list = NDList.decode(PassthroughNDManager.INSTANCE, file);
        } catch (RuntimeException e) {
            say("{\"result\":\"rejected\",\"reason\":" + quote(e.getClass().getName() + ": " + e.getMessage()) + "}", 1);
            return;
        }
        StringBuilder out = new StringBuilder("{\"result\":\"accepted\",\"metadata\":null,\"tensors\":{");
        String sep = "";
        for (NDArray array : list) {
            out.append(sep).append(quote(array.getName())).append(":{\"dtype\":\"")
                    .append(array.getDataType().asSafetensors()).append("\",\"shape\":[");
            long[] shape = array.getShape().getShape();
            for (int i = 0; i < shape.length; i++) {
                out.append(i > 0 ? "," : "").append(Long.toUnsignedString(shape[i]));
            }
            out.append("],\"sha256\":\"").append(sha256(array.toByteBuffer())).append("\"}");
            sep = ",";
        }
        say(out.append("}}").toString(), 0);
    }
}
