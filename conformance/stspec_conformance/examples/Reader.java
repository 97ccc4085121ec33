// A small, strict safetensors reader in Java (17 or later) that speaks the
// conformance suite's command protocol 2 (docs/reference/command-protocol.md),
// with the standard library only:
//
//   javac -d classes Reader.java
//   java -cp classes Reader FILE       exit 0 + {"result": "accepted", ...}
//                                      or exit 1 + {"result": "rejected", "rule", "reason"}
//   java -cp classes Reader --describe {"protocol": 2, "name", "version", "capabilities"}
//
//   pytest conformance --impl="cmd:java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp classes Reader"
//
// It is strict: it rejects every file that is not valid, tolerated ones
// included (leading whitespace, padding other than 0x20, unknown entry
// members, null metadata), naming the MAY rule only when the file breaks no
// MUST rule. The header goes through a JSON parser written for the format
// over the raw bytes: general JSON libraries keep the last of two duplicate
// keys, pass lone surrogates through, or read 4.0 as an integer. Shape
// dimensions and offsets are unsigned 64-bit values held in longs. Every
// other failure (an I/O error, a bug) prints no answer and exits 70, which the
// suite counts as a crash.

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class Reader {
    private static final long MAX_HEADER = 100_000_000L;
    private static final int MAX_DEPTH = 127;
    // Tensors above 256 MiB are answered with the sha256 of three 1 MiB
    // windows (start, middle, end), as the protocol allows.
    private static final long HASH_LIMIT = 256L << 20;
    private static final long WINDOW = 1L << 20;
    private static final Map<String, Integer> DTYPE_BITS = new HashMap<>();

    static {
        for (String name : new String[] {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ"}) {
            DTYPE_BITS.put(name, 8);
        }
        DTYPE_BITS.put("F4", 4);
        DTYPE_BITS.put("F6_E2M3", 6);
        DTYPE_BITS.put("F6_E3M2", 6);
        for (String name : new String[] {"I16", "U16", "F16", "BF16"}) {
            DTYPE_BITS.put(name, 16);
        }
        for (String name : new String[] {"I32", "U32", "F32"}) {
            DTYPE_BITS.put(name, 32);
        }
        for (String name : new String[] {"C64", "F64", "I64", "U64"}) {
            DTYPE_BITS.put(name, 64);
        }
    }

    private Reader() {}

    /** A judgement on the file: a rule id and what differed. */
    static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;
        final String rule;

        Rejected(String rule, String reason) {
            super(reason, null, false, false);
            this.rule = rule;
        }
    }

    // --- JSON -------------------------------------------------------------------

    enum Kind { OBJECT, ARRAY, STRING, NUMBER, LITERAL }

    static final class Value {
        final Kind kind;
        final String text; // a string's decoded text, a number's token, a literal
        final List<String> names = new ArrayList<>();
        final List<Value> items = new ArrayList<>(); // array items, or member values

        Value(Kind kind, String text) {
            this.kind = kind;
            this.text = text;
        }
    }

    static final class Parser {
        private final byte[] text;
        int pos;

        Parser(byte[] text) {
            this.text = text;
        }

        Rejected fail(String rule, String what) {
            return new Rejected(rule, what + " at absolute offset " + (8 + pos));
        }

        int peek() {
            return pos < text.length ? text[pos] & 0xFF : -1;
        }

        void skipSpace() {
            for (int c = peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek()) {
                pos++;
            }
        }

        void expect(char c) throws Rejected {
            if (peek() != c) {
                throw fail("JSON-SYNTAX", "expected '" + c + "'");
            }
            pos++;
        }

        Value value(int depth) throws Rejected {
            int c = peek();
            if (c == '{' || c == '[') {
                return container(depth + 1, c == '{');
            }
            if (c == '"') {
                return new Value(Kind.STRING, string());
            }
            if (c == '-' || (c >= '0' && c <= '9')) {
                return number();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (startsWith(word)) {
                    pos += word.length();
                    return new Value(Kind.LITERAL, word);
                }
            }
            throw fail("JSON-SYNTAX", c < 0 ? "expected a value, found the end of the header" : String.format("unexpected byte 0x%02X", c));
        }

        private boolean startsWith(String word) {
            byte[] bytes = word.getBytes(StandardCharsets.US_ASCII);
            return pos + bytes.length <= text.length && Arrays.equals(text, pos, pos + bytes.length, bytes, 0, bytes.length);
        }

        private Value container(int depth, boolean object) throws Rejected {
            if (depth > MAX_DEPTH) {
                throw fail("JSON-DEPTH", "nesting deeper than " + MAX_DEPTH + " levels");
            }
            char close = object ? '}' : ']';
            pos++;
            Value v = new Value(object ? Kind.OBJECT : Kind.ARRAY, null);
            Set<String> seen = new HashSet<>();
            skipSpace();
            if (peek() == close) {
                pos++;
                return v;
            }
            while (true) {
                skipSpace();
                if (object) {
                    if (peek() != '"') {
                        throw fail("JSON-SYNTAX", "expected a member name");
                    }
                    int at = pos;
                    String name = string();
                    if (!seen.add(name)) {
                        pos = at;
                        throw fail("KEY-UNIQUE", "member name " + quote(name) + " appears twice");
                    }
                    v.names.add(name);
                    skipSpace();
                    expect(':');
                    skipSpace();
                }
                v.items.add(value(depth));
                skipSpace();
                if (peek() == ',') {
                    pos++;
                    continue;
                }
                expect(close);
                return v;
            }
        }

        private int hex4() throws Rejected {
            int code = 0;
            for (int i = 0; i < 4; i++) {
                int digit = Character.digit(peek(), 16);
                if (peek() < 0 || peek() > 'f' || digit < 0) {
                    throw fail("JSON-SYNTAX", "\\u escape without four hex digits");
                }
                code = code << 4 | digit;
                pos++;
            }
            return code;
        }

        /** Decodes a string; the header is already known to be UTF-8. */
        String string() throws Rejected {
            pos++; // '"'
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                int c = peek();
                if (c < 0) {
                    throw fail("JSON-SYNTAX", "unterminated string");
                }
                if (c == '"') {
                    pos++;
                    return out.toString(StandardCharsets.UTF_8);
                }
                if (c < 0x20) {
                    throw fail("JSON-SYNTAX", String.format("raw control character 0x%02X in a string", c));
                }
                if (c != '\\') {
                    out.write(c);
                    pos++;
                    continue;
                }
                int at = pos;
                pos++;
                int e = peek();
                pos++;
                int code;
                switch (e) {
                    case '"': case '\\': case '/': code = e; break;
                    case 'b': code = '\b'; break;
                    case 'f': code = '\f'; break;
                    case 'n': code = '\n'; break;
                    case 'r': code = '\r'; break;
                    case 't': code = '\t'; break;
                    case 'u':
                        code = hex4();
                        if (code >= 0xDC00 && code <= 0xDFFF) {
                            pos = at;
                            throw fail("JSON-SURROGATE", "lone low surrogate escape");
                        }
                        if (code >= 0xD800 && code <= 0xDBFF) {
                            if (!startsWith("\\u")) {
                                pos = at;
                                throw fail("JSON-SURROGATE", "high surrogate escape not followed by a low one");
                            }
                            pos += 2;
                            int low = hex4();
                            if (low < 0xDC00 || low > 0xDFFF) {
                                pos = at;
                                throw fail("JSON-SURROGATE", "high surrogate escape not followed by a low one");
                            }
                            code = Character.toCodePoint((char) code, (char) low);
                        }
                        break;
                    default:
                        pos = at;
                        throw fail("JSON-SYNTAX", "bad escape after a backslash");
                }
                out.writeBytes(new String(Character.toChars(code)).getBytes(StandardCharsets.UTF_8));
            }
        }

        private int digits() {
            int start = pos;
            while (peek() >= '0' && peek() <= '9') {
                pos++;
            }
            return pos - start;
        }

        /** Checks the RFC 8259 grammar and keeps the token. */
        private Value number() throws Rejected {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            if (peek() == '0') {
                pos++;
            } else if (digits() == 0) {
                throw fail("JSON-SYNTAX", "a number without digits");
            }
            if (peek() == '.') {
                pos++;
                if (digits() == 0) {
                    throw fail("JSON-SYNTAX", "a fraction without digits");
                }
            }
            if (peek() == 'e' || peek() == 'E') {
                pos++;
                if (peek() == '+' || peek() == '-') {
                    pos++;
                }
                if (digits() == 0) {
                    throw fail("JSON-SYNTAX", "an exponent without digits");
                }
            }
            return new Value(Kind.NUMBER, new String(text, start, pos - start, StandardCharsets.US_ASCII));
        }
    }

    // --- header structure ---------------------------------------------------------

    record Tensor(String name, String dtype, long[] shape, long begin, long end) {}

    /** A shape dimension or an offset: a plain integer token up to 2^64-1 (unsigned in a long). */
    static long u64(Value v, String what) throws Rejected {
        if (v.text.chars().anyMatch(c -> c == '-' || c == '.' || c == 'e' || c == 'E')) {
            throw new Rejected("NUM-INTEGER", what + " is " + v.text + ", not a plain non-negative integer");
        }
        try {
            return Long.parseUnsignedLong(v.text);
        } catch (NumberFormatException e) {
            throw new Rejected("NUM-RANGE", what + " (" + v.text.length() + " digits) exceeds 2^64-1");
        }
    }

    static Map<String, String> checkMetadata(Value v) throws Rejected {
        if (v.kind != Kind.OBJECT) {
            throw new Rejected("META-OBJECT", "__metadata__ is not an object");
        }
        Map<String, String> meta = new LinkedHashMap<>();
        for (int i = 0; i < v.names.size(); i++) {
            Value item = v.items.get(i);
            if (item.kind != Kind.STRING) {
                throw new Rejected("META-STRING", "metadata value " + quote(v.names.get(i)) + " is not a string");
            }
            meta.put(v.names.get(i), item.text);
        }
        return meta;
    }

    static Tensor checkEntry(String name, Value v, List<Rejected> tolerated) throws Rejected {
        String q = quote(name);
        if (v.kind != Kind.OBJECT) {
            throw new Rejected("ENTRY-OBJECT", "member " + q + " is not a tensor entry object");
        }
        Map<String, Value> fields = new HashMap<>();
        for (int i = 0; i < v.names.size(); i++) {
            String field = v.names.get(i);
            if (field.equals("dtype") || field.equals("shape") || field.equals("data_offsets")) {
                fields.put(field, v.items.get(i));
            } else {
                tolerated.add(new Rejected("ENTRY-UNKNOWN", "tensor " + q + " has the unknown member " + quote(field)));
            }
        }
        for (String field : new String[] {"dtype", "shape", "data_offsets"}) {
            if (!fields.containsKey(field)) {
                throw new Rejected("ENTRY-FIELDS", "tensor " + q + " has no " + field);
            }
        }
        Value dtype = fields.get("dtype");
        if (dtype.kind != Kind.STRING || !DTYPE_BITS.containsKey(dtype.text)) {
            throw new Rejected("DTYPE-NAME", "the dtype of " + q + " is not one of the 22 names");
        }
        Value shape = fields.get("shape");
        if (shape.kind != Kind.ARRAY) {
            throw new Rejected("SHAPE-ARRAY", "the shape of " + q + " is not an array");
        }
        for (Value dim : shape.items) {
            if (dim.kind != Kind.NUMBER) {
                throw new Rejected("SHAPE-ARRAY", "the shape of " + q + " holds a non-number");
            }
        }
        Value offsets = fields.get("data_offsets");
        if (offsets.kind != Kind.ARRAY || offsets.items.size() != 2
                || offsets.items.get(0).kind != Kind.NUMBER || offsets.items.get(1).kind != Kind.NUMBER) {
            throw new Rejected("OFFSETS-PAIR", "data_offsets of " + q + " is not an array of two integers");
        }
        long[] dims = new long[shape.items.size()];
        boolean empty = false;
        for (int i = 0; i < dims.length; i++) {
            dims[i] = u64(shape.items.get(i), "dimension " + i + " of " + q);
            empty |= dims[i] == 0;
        }
        long begin = u64(offsets.items.get(0), "begin of " + q);
        long end = u64(offsets.items.get(1), "end of " + q);
        // The bit count, exactly: zero if any dimension is zero, else a product
        // that must stay within 2^64-1.
        long count = empty ? 0 : DTYPE_BITS.get(dtype.text);
        for (int i = 0; count != 0 && i < dims.length; i++) {
            if (Long.compareUnsigned(count, Long.divideUnsigned(-1L, dims[i])) > 0) {
                throw new Rejected("SIZE-OVERFLOW", "the bit count of " + q + " exceeds 2^64-1");
            }
            count *= dims[i];
        }
        if ((count & 7) != 0) {
            throw new Rejected("SIZE-BITS", q + " is " + Long.toUnsignedString(count) + " bits, not whole bytes");
        }
        if (Long.compareUnsigned(begin, end) > 0) {
            throw new Rejected("OFFSETS-ORDER", "data_offsets [" + Long.toUnsignedString(begin) + ", "
                    + Long.toUnsignedString(end) + "] of " + q + " run backwards");
        }
        if (end - begin != count >>> 3) {
            throw new Rejected("SIZE-MATCH", q + " needs " + Long.toUnsignedString(count >>> 3)
                    + " bytes, its offsets give " + Long.toUnsignedString(end - begin));
        }
        return new Tensor(name, dtype.text, dims, begin, end);
    }

    static void checkLayout(List<Tensor> tensors, long length) throws Rejected {
        for (Tensor t : tensors) {
            if (Long.compareUnsigned(t.end(), length) > 0) {
                throw new Rejected("LAYOUT-BOUNDS", quote(t.name()) + " ends at " + Long.toUnsignedString(t.end())
                        + ", past the byte buffer (" + length + " bytes)");
            }
        }
        // every end is now within the buffer, so signed order is unsigned order
        List<Tensor> sorted = new ArrayList<>(tensors);
        sorted.sort(Comparator.comparingLong(Tensor::begin).thenComparingLong(Tensor::end));
        long cursor = 0;
        for (Tensor t : sorted) {
            if (t.begin() > cursor) {
                throw new Rejected("LAYOUT-HOLE", "buffer bytes " + cursor + ".." + t.begin() + " belong to no tensor");
            }
            if (t.begin() < cursor) {
                throw new Rejected("LAYOUT-OVERLAP", quote(t.name()) + " begins at " + t.begin()
                        + ", inside another tensor (which ends at " + cursor + ")");
            }
            cursor = t.end();
        }
        if (cursor != length) {
            throw new Rejected("LAYOUT-TRAILING", (length - cursor) + " bytes follow the last tensor");
        }
    }

    // --- reading ------------------------------------------------------------------

    static void readFully(FileChannel file, ByteBuffer buffer, long at) throws IOException {
        while (buffer.hasRemaining()) {
            int n = file.read(buffer, at);
            if (n < 0) {
                throw new IOException("the file ended early");
            }
            at += n;
        }
    }

    static String read(FileChannel file) throws IOException, Rejected {
        long size = file.size();
        if (size < 8) {
            throw new Rejected("FILE-PREFIX", "the file is " + size + " bytes, shorter than the 8-byte prefix");
        }
        ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        readFully(file, prefix, 0);
        long n = prefix.getLong(0);
        if (Long.compareUnsigned(n, MAX_HEADER) > 0) {
            throw new Rejected("HEADER-LIMIT", "N = " + Long.toUnsignedString(n) + " exceeds 100,000,000");
        }
        if (8 + n > size) {
            throw new Rejected("HEADER-BOUNDS", "8 + N = " + (8 + n) + " exceeds the file length " + size);
        }
        byte[] text = new byte[(int) n];
        readFully(file, ByteBuffer.wrap(text), 8);
        if (!wellFormedUtf8(text)) {
            throw new Rejected("HEADER-UTF8", "the header is not well-formed UTF-8");
        }
        // MAY rules the file breaks; reported only if it breaks no MUST rule.
        List<Rejected> tolerated = new ArrayList<>();
        Parser p = new Parser(text);
        p.skipSpace();
        if (p.peek() != '{') {
            throw p.fail("HEADER-OBJECT", "the header does not hold a JSON object");
        }
        if (p.pos > 0) {
            tolerated.add(new Rejected("HEADER-LEADING-WS", "whitespace before the header object"));
        }
        Value header = p.value(0);
        for (int c = p.peek(); c >= 0; p.pos++, c = p.peek()) {
            if (c == '\t' || c == '\n' || c == '\r') {
                tolerated.add(p.fail("HEADER-PADDING", "padding other than 0x20"));
            } else if (c != ' ') {
                throw p.fail("HEADER-TRAILING", String.format("byte 0x%02X after the header object", c));
            }
        }
        Map<String, String> metadata = null;
        List<Tensor> tensors = new ArrayList<>();
        for (int i = 0; i < header.names.size(); i++) {
            String name = header.names.get(i);
            Value v = header.items.get(i);
            if (!name.equals("__metadata__")) {
                tensors.add(checkEntry(name, v, tolerated));
            } else if (v.kind == Kind.LITERAL && v.text.equals("null")) {
                tolerated.add(new Rejected("META-NULL", "__metadata__ is null"));
            } else {
                metadata = checkMetadata(v);
            }
        }
        checkLayout(tensors, size - 8 - n);
        if (!tolerated.isEmpty()) {
            Rejected first = tolerated.get(0);
            throw new Rejected(first.rule, first.getMessage() + " (tolerated; this reader is strict)");
        }
        return accepted(file, 8 + n, metadata, tensors);
    }

    /** RFC 3629: shortest forms only, no surrogates, nothing above U+10FFFF, nothing truncated. */
    static boolean wellFormedUtf8(byte[] text) {
        for (int i = 0; i < text.length;) {
            int b = text[i] & 0xFF;
            int extra;
            int min;
            if (b < 0x80) {
                i++;
                continue;
            } else if (b >= 0xC2 && b <= 0xDF) {
                extra = 1;
                min = 0x80;
            } else if (b >= 0xE0 && b <= 0xEF) {
                extra = 2;
                min = 0x800;
            } else if (b >= 0xF0 && b <= 0xF4) {
                extra = 3;
                min = 0x10000;
            } else {
                return false;
            }
            if (i + extra >= text.length) {
                return false;
            }
            int code = b & (0x3F >> extra);
            for (int k = 1; k <= extra; k++) {
                int c = text[i + k] & 0xFF;
                if ((c & 0xC0) != 0x80) {
                    return false;
                }
                code = code << 6 | (c & 0x3F);
            }
            if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
                return false;
            }
            i += extra + 1;
        }
        return true;
    }

    // One digest and one buffer for every tensor: a header may list a million.
    private static final MessageDigest HASH;
    private static final ByteBuffer BUFFER = ByteBuffer.allocate((int) WINDOW);

    static {
        try {
            HASH = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256At(FileChannel file, long start, long length) throws IOException {
        MessageDigest hash = HASH;
        ByteBuffer buffer = BUFFER;
        for (long done = 0; done < length;) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), length - done));
            readFully(file, buffer, start + done);
            buffer.flip();
            done += buffer.remaining();
            hash.update(buffer);
        }
        return HexFormat.of().formatHex(hash.digest());
    }

    static String digest(FileChannel file, long start, long n) throws IOException {
        if (n <= HASH_LIMIT) {
            return "\"sha256\":\"" + sha256At(file, start, n) + "\"";
        }
        long[] starts = {0, Math.max(0, n / 2 - WINDOW / 2), n - WINDOW};
        StringBuilder out = new StringBuilder("\"windows\":[");
        for (int i = 0; i < starts.length; i++) {
            if (i > 0 && starts[i] == starts[i - 1]) {
                continue;
            }
            out.append(i > 0 ? "," : "").append('[').append(starts[i]).append(",\"")
                    .append(sha256At(file, start + starts[i], Math.min(WINDOW, n - starts[i]))).append("\"]");
        }
        return out.append(']').toString();
    }

    // --- output -------------------------------------------------------------------

    /** A JSON string: only the quote, the backslash and control characters need escapes. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7F) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static String accepted(FileChannel file, long start, Map<String, String> metadata, List<Tensor> tensors)
            throws IOException {
        StringBuilder out = new StringBuilder("{\"result\":\"accepted\",\"metadata\":");
        if (metadata == null) {
            out.append("null");
        } else {
            out.append('{');
            String sep = "";
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                out.append(sep).append(quote(e.getKey())).append(':').append(quote(e.getValue()));
                sep = ",";
            }
            out.append('}');
        }
        out.append(",\"tensors\":{");
        String sep = "";
        for (Tensor t : tensors) {
            out.append(sep).append(quote(t.name())).append(":{\"dtype\":\"").append(t.dtype()).append("\",\"shape\":[");
            for (int i = 0; i < t.shape().length; i++) {
                out.append(i > 0 ? "," : "").append(Long.toUnsignedString(t.shape()[i]));
            }
            out.append("],").append(digest(file, start + t.begin(), t.end() - t.begin())).append('}');
            sep = ",";
        }
        return out.append("}}").toString();
    }

    static void say(String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        System.out.write(bytes, 0, bytes.length);
        System.out.flush();
    }

    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--describe")) {
            say("{\"protocol\":2,\"name\":\"Reader.java (Java example)\",\"version\":\"1.0.0\",\"capabilities\":{}}");
            return;
        }
        if (args.length != 1 || args[0].startsWith("--")) {
            System.err.println("usage: java Reader FILE | --describe");
            System.exit(2);
        }
        try (FileChannel file = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ)) {
            say(read(file));
        } catch (Rejected r) {
            say("{\"result\":\"rejected\",\"rule\":\"" + r.rule + "\",\"reason\":" + quote(r.getMessage()) + "}");
            System.exit(1);
        } catch (IOException | RuntimeException | StackOverflowError | OutOfMemoryError e) {
            // not a judgement on the file but a failure: no answer, a crash
            e.printStackTrace();
            System.exit(70);
        }
    }
}
