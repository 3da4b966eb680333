package dev.statekit.jdbc.internal;

import dev.statekit.store.Attributes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Encodes attributes as a flat JSON object of strings, and decodes exactly that shape.
 *
 * <p>Control characters and every UTF-16 surrogate are written as {@code \}{@code uXXXX}
 * escapes, so the stored text is valid in any database encoding and holds no NUL character,
 * whatever the application put into its attributes.
 */
public final class AttributeCodec {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private AttributeCodec() {
    }

    /** Returns the JSON text of {@code attributes}: {@code {}} when empty, keys in their sorted order. */
    public static String encode(Attributes attributes) {
        if (attributes.isEmpty()) return "{}";
        StringBuilder out = new StringBuilder(16 * attributes.size() + 2).append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : attributes.asMap().entrySet()) {
            if (!first) out.append(',');
            first = false;
            quote(out, e.getKey());
            out.append(':');
            quote(out, e.getValue());
        }
        return out.append('}').toString();
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                        out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf])
                                .append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * Decodes the text written by {@link #encode}: a JSON object whose values are strings.
     *
     * @throws IllegalArgumentException if {@code text} is not such an object, repeats a key or has a blank key
     */
    public static Attributes decode(String text) {
        Parser p = new Parser(text);
        Map<String, String> map = p.object();
        return map.isEmpty() ? Attributes.EMPTY : Attributes.of(map);
    }

    /** A strict recursive-descent reader of one flat object. */
    private static final class Parser {
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        Map<String, String> object() {
            Map<String, String> map = new LinkedHashMap<>();
            space();
            expect('{');
            space();
            if (peek() == '}') {
                i++;
            } else {
                while (true) {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    space();
                    String value = string();
                    if (map.put(key, value) != null) throw error("repeated key \"" + key + "\"");
                    space();
                    char c = next();
                    if (c == '}') break;
                    if (c != ',') throw error("expected ',' or '}'");
                }
            }
            space();
            if (i != s.length()) throw error("unexpected text after the object");
            return map;
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') return out.toString();
                if (c != '\\') {
                    if (c < 0x20) throw error("unescaped control character");
                    out.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) throw error("truncated \\u escape");
                        int v = 0;
                        for (int k = 0; k < 4; k++) {
                            int d = Character.digit(s.charAt(i++), 16);
                            if (d < 0) throw error("bad \\u escape");
                            v = v << 4 | d;
                        }
                        out.append((char) v);
                    }
                    default -> throw error("bad escape \\" + e);
                }
            }
        }

        private void space() {
            while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\n' || s.charAt(i) == '\r' || s.charAt(i) == '\t')) i++;
        }

        private char peek() {
            if (i >= s.length()) throw error("unexpected end");
            return s.charAt(i);
        }

        private char next() {
            char c = peek();
            i++;
            return c;
        }

        private void expect(char c) {
            if (next() != c) throw error("expected '" + c + "'");
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("malformed attributes at offset " + i + ": " + what);
        }
    }
}
