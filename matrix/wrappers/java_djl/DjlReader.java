// A command-protocol-2 wrapper around DJL's safetensors decoder (ai.djl:api):
// NDList.decode(manager, InputStream) over the file, as a DJL user loads one
// from disk, with the PassthroughNDManager, which needs no native engine.
// (Reading the file into one byte[] first would be the wrapper's own limit:
// Java arrays stop at 2 GiB, and a valid file can be larger.) DJL sniffs the
// format from the first 9 bytes (byte 8 = '{' means safetensors). It has no
// API for __metadata__, so the wrapper declares "metadata": false.
// DJL refuses with IllegalArgumentException (its "Malformed data", Gson's
// number errors) and Gson's JsonParseException; the runtime's own errors
// (NullPointerException, IndexOutOfBoundsException, ArithmeticException,
// NegativeArraySizeException, ...) are unexpected exceptions and escape, as
// in every row (docs/howto/read-the-results-matrix.md, "Errors and outcomes").
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.util.passthrough.PassthroughNDManager;
import com.google.gson.JsonParseException;
import java.io.InputStream;
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
                    + "[\"F64\",\"F32\",\"F16\",\"BF16\",\"I64\",\"I32\",\"I8\",\"U8\",\"BOOL\"],"
                    + "\"metadata\":false}}", 0);
        }
        NDList list;
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            list = NDList.decode(PassthroughNDManager.INSTANCE, in);
        } catch (IllegalArgumentException | JsonParseException e) {
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
