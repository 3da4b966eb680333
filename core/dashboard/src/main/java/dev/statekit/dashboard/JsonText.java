package dev.statekit.dashboard;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The dashboard's JSON, strict and small: {@link #write} writes maps (with string keys), lists,
 * strings, numbers, booleans and null; {@link #read} reads one JSON value (RFC 8259) into the same
 * shapes ({@link Long} for an integer that fits, {@link BigInteger} for one that does not,
 * {@link BigDecimal} for any other number) and refuses trailing text, duplicate keys, nesting
 * deeper than {@value #MAX_DEPTH}, control characters in strings and lone surrogates.
 */
final class JsonText {
    /** The most nesting a document may have. */
    static final int MAX_DEPTH = 32;

    private JsonText() {}

    /** Returns {@code value} as JSON text. */
    static String write(@Nullable Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.toString();
    }

    private static void write(StringBuilder out, @Nullable Object value, int depth) {
        if (depth > 64) throw new IllegalArgumentException("a value nested deeper than 64 levels");
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            string(out, s);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte
                || value instanceof BigInteger) {
            out.append(value);
        } else if (value instanceof BigDecimal d) {
            out.append(d.toString());
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("JSON has no " + d);
            out.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d));
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String key)) throw new IllegalArgumentException("a JSON object's keys are strings, not " + e.getKey());
                if (!first) out.append(',');
                first = false;
                string(out, key);
                out.append(':');
                write(out, e.getValue(), depth + 1);
            }
            out.append('}');
        } else if (value instanceof Iterable<?> list) {
            out.append('[');
            boolean first = true;
            for (Object item : list) {
                if (!first) out.append(',');
                first = false;
                write(out, item, depth + 1);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("no JSON for a " + value.getClass().getName());
        }
    }

    /**
     * Writes {@code s} as a JSON string. Besides {@code "} and {@code \}, every control character,
     * {@code <}, {@code >}, {@code &}, U+2028 and U+2029 are escaped, so that the text stays inert
     * wherever a page may put it.
     */
    private static void string(StringBuilder out, String s) {
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
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029' || c == 0x7f) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** Text that is not JSON: the message says what and where (line, column). */
    static final class MalformedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Reads {@code text} as one JSON value.
     *
     * @throws MalformedException when it is not JSON, or breaks a rule of this reader
     */
    static @Nullable Object read(String text) {
        Reader r = new Reader(text);
        r.space();
        Object value = r.value(0);
        r.space();
        if (r.at < text.length()) throw r.error("unexpected text after the value");
        return value;
    }

    private static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        MalformedException error(String what) {
            int line = 1;
            int column = 1;
            for (int i = 0; i < Math.min(at, text.length()); i++) {
                if (text.charAt(i) == '\n') {
                    line++;
                    column = 1;
                } else {
                    column++;
                }
            }
            return new MalformedException(what + " (line " + line + ", column " + column + ")");
        }

        void space() {
            while (at < text.length()) {
                char c = text.charAt(at);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
                at++;
            }
        }

        @Nullable Object value(int depth) {
            if (at >= text.length()) throw error("unexpected end of the text");
            char c = text.charAt(at);
            return switch (c) {
                case '{' -> object(depth + 1);
                case '[' -> array(depth + 1);
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) yield number();
                    throw error("unexpected character '" + printable(c) + "'");
                }
            };
        }

        private static String printable(char c) {
            return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
        }

        private @Nullable Object literal(String word, @Nullable Object value) {
            if (!text.startsWith(word, at)) throw error("unexpected text, not " + word);
            at += word.length();
            return value;
        }

        private Map<String, Object> object(int depth) {
            if (depth > MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH + " levels");
            at++;
            Map<String, Object> map = new LinkedHashMap<>();
            space();
            if (at < text.length() && text.charAt(at) == '}') {
                at++;
                return map;
            }
            while (true) {
                space();
                if (at >= text.length() || text.charAt(at) != '"') throw error("expected a field name in quotes");
                int keyAt = at;
                String key = string();
                space();
                if (at >= text.length() || text.charAt(at) != ':') throw error("expected ':' after a field name");
                at++;
                space();
                Object value = value(depth);
                if (map.containsKey(key)) {
                    at = keyAt;
                    throw error("duplicate field '" + (key.length() > 80 ? key.substring(0, 80) + "…" : key) + "'");
                }
                map.put(key, value);
                space();
                if (at >= text.length()) throw error("unexpected end of the text in an object");
                char c = text.charAt(at++);
                if (c == '}') return map;
                if (c != ',') {
                    at--;
                    throw error("expected ',' or '}' in an object");
                }
            }
        }

        private List<Object> array(int depth) {
            if (depth > MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH + " levels");
            at++;
            List<Object> list = new ArrayList<>();
            space();
            if (at < text.length() && text.charAt(at) == ']') {
                at++;
                return list;
            }
            while (true) {
                space();
                list.add(value(depth));
                space();
                if (at >= text.length()) throw error("unexpected end of the text in an array");
                char c = text.charAt(at++);
                if (c == ']') return list;
                if (c != ',') {
                    at--;
                    throw error("expected ',' or ']' in an array");
                }
            }
        }

        private String string() {
            at++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (at >= text.length()) throw error("unexpected end of the text in a string");
                char c = text.charAt(at);
                if (c == '"') {
                    at++;
                    return out.toString();
                }
                if (c < 0x20) throw error("a control character in a string");
                if (Character.isHighSurrogate(c)) {
                    if (at + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(at + 1))) throw error("a lone surrogate in a string");
                    out.append(c).append(text.charAt(at + 1));
                    at += 2;
                    continue;
                }
                if (Character.isLowSurrogate(c)) throw error("a lone surrogate in a string");
                if (c != '\\') {
                    out.append(c);
                    at++;
                    continue;
                }
                if (at + 1 >= text.length()) throw error("unexpected end of the text in a string");
                char e = text.charAt(at + 1);
                at += 2;
                switch (e) {
                    case '"' -> out.append('"');
                    case '\\' -> out.append('\\');
                    case '/' -> out.append('/');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        char u = unicode();
                        if (Character.isHighSurrogate(u)) {
                            if (!text.startsWith("\\u", at)) throw error("a lone surrogate in a string");
                            at += 2;
                            char low = unicode();
                            if (!Character.isLowSurrogate(low)) throw error("a lone surrogate in a string");
                            out.append(u).append(low);
                        } else if (Character.isLowSurrogate(u)) {
                            throw error("a lone surrogate in a string");
                        } else {
                            out.append(u);
                        }
                    }
                    default -> {
                        at -= 2;
                        throw error("an unknown escape '\\" + printable(e) + "' in a string");
                    }
                }
            }
        }

        private char unicode() {
            if (at + 4 > text.length()) throw error("unexpected end of the text in a \\u escape");
            int value = 0;
            for (int i = 0; i < 4; i++) {
                int d = Character.digit(text.charAt(at + i), 16);
                if (d < 0) throw error("a \\u escape takes four hexadecimal digits");
                value = value * 16 + d;
            }
            at += 4;
            return (char) value;
        }

        private Object number() {
            int start = at;
            if (text.charAt(at) == '-') at++;
            if (at >= text.length()) throw error("a number without digits");
            if (text.charAt(at) == '0') {
                at++;
            } else if (text.charAt(at) >= '1' && text.charAt(at) <= '9') {
                while (at < text.length() && isDigit(text.charAt(at))) at++;
            } else {
                throw error("a number without digits");
            }
            boolean integral = true;
            if (at < text.length() && text.charAt(at) == '.') {
                integral = false;
                at++;
                if (at >= text.length() || !isDigit(text.charAt(at))) throw error("a number's fraction without digits");
                while (at < text.length() && isDigit(text.charAt(at))) at++;
            }
            if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
                integral = false;
                at++;
                if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) at++;
                if (at >= text.length() || !isDigit(text.charAt(at))) throw error("a number's exponent without digits");
                while (at < text.length() && isDigit(text.charAt(at))) at++;
            }
            String number = text.substring(start, at);
            if (number.length() > 100) throw error("a number longer than 100 characters");
            if (!integral) return new BigDecimal(number);
            BigInteger big = new BigInteger(number);
            return big.bitLength() < 64 ? (Object) big.longValue() : big;
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }
    }
}
