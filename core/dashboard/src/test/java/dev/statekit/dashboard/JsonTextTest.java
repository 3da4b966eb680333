package dev.statekit.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard's own JSON: what it writes, and the strict reader of request bodies. */
class JsonTextTest {
    @Test
    void writesMapsListsStringsNumbersBooleansAndNull() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("id", 12L);
        value.put("n", 3);
        value.put("ok", true);
        value.put("none", null);
        value.put("list", List.of("a", 2.5, -7L));
        value.put("nested", Map.of("k", "v"));
        assertThat(JsonText.write(value)).isEqualTo("{\"id\":12,\"n\":3,\"ok\":true,\"none\":null,\"list\":[\"a\",2.5,-7],\"nested\":{\"k\":\"v\"}}");
        assertThat(JsonText.write(List.of())).isEqualTo("[]");
        assertThat(JsonText.write(Map.of())).isEqualTo("{}");
    }

    @Test
    void escapesWhatCouldBreakOutOfAStringOrAPage() {
        assertThat(JsonText.write("a\"b\\c\nd\te\u0001</script>&\u2028"))
                .isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001\\u003c/script\\u003e\\u0026\\u2028\"");
        assertThat(JsonText.read(JsonText.write("a\"b\\c\nd\te\u0001</script>&\u2028 é 😀"))).isEqualTo("a\"b\\c\nd\te\u0001</script>&\u2028 é 😀");
        assertThatThrownBy(() -> JsonText.write(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JsonText.write(new Object())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readsEveryKindOfValue() {
        Object v = JsonText.read(" {\"a\": [1, -2, 3.5, 1e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\/\"], \"b\": {}, \"big\": 123456789012345678901234} ");
        assertThat(v).isInstanceOf(Map.class);
        Map<?, ?> m = (Map<?, ?>) v;
        @SuppressWarnings("unchecked")
        List<Object> a = (List<Object>) m.get("a");
        assertThat(a).containsExactly(1L, -2L, new BigDecimal("3.5"), new BigDecimal("1e3"), true, false, null, "xé😀/");
        assertThat(m.get("b")).isEqualTo(Map.of());
        assertThat(m.get("big")).isEqualTo(new BigInteger("123456789012345678901234"));
        assertThat(JsonText.read("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(JsonText.read("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        assertThat(JsonText.read("9223372036854775808")).isEqualTo(new BigInteger("9223372036854775808"));
    }

    @Test
    void refusesWhatIsNotStrictJson() {
        for (String bad : List.of("", "{", "{\"a\":1,}", "[1,]", "{\"a\":1}x", "{\"a\":1}{}", "{a:1}", "{'a':1}", "01", "1.", ".5", "-", "1e",
                "+1", "NaN", "tru", "nul", "\"a", "\"\\x\"", "\"\\u12\"", "\"a\u0001\"", "\"\\ud800\"", "\"\\udc00\"", "\"\ud800\"",
                "{\"a\":1,\"a\":2}", "[1 2]", "{\"a\" 1}", "// x\n1")) {
            assertThatThrownBy(() -> JsonText.read(bad)).as(bad).isInstanceOf(JsonText.MalformedException.class);
        }
    }

    @Test
    void refusesNestingDeeperThanTheLimitAndSaysWhere() {
        char[] open = new char[JsonText.MAX_DEPTH];
        char[] close = new char[JsonText.MAX_DEPTH];
        Arrays.fill(open, '[');
        Arrays.fill(close, ']');
        assertThat(JsonText.read(new String(open) + new String(close))).isInstanceOf(List.class);
        assertThatThrownBy(() -> JsonText.read("[" + new String(open) + new String(close) + "]")).isInstanceOf(JsonText.MalformedException.class)
                .hasMessageContaining("deeper than " + JsonText.MAX_DEPTH);
        assertThatThrownBy(() -> JsonText.read("{\n  \"a\": 1,\n  \"a\": 2}")).hasMessageContaining("duplicate field 'a'").hasMessageContaining("line 3");
    }

    @Test
    void aBodyIsAnObjectReadFieldByField() {
        Body body = Body.parse("{\"event\":\"RETRY\",\"limit\":3}");
        assertThat(body.requireString("event", 100)).isEqualTo("RETRY");
        assertThat(body.integer("limit", 0, 10)).contains(3L);
        assertThat(Body.parse("  ").fields()).isEmpty();
        assertError(() -> Body.parse("[1]"), 400, "INVALID_BODY", null);
        assertError(() -> Body.parse("{\"a\":"), 400, "MALFORMED_JSON", null);
        assertError(() -> body.requireOnly(List.of("event")), 400, "UNKNOWN_FIELD", "limit");
        assertError(() -> body.integer("limit", 5, 10), 400, "INVALID_FIELD", "limit");
        assertError(() -> body.integer("event", 0, 10), 400, "INVALID_FIELD", "event");
        assertError(() -> body.string("limit", 10), 400, "INVALID_FIELD", "limit");
        assertError(() -> body.requireString("missing", 10), 400, "INVALID_FIELD", "missing");
        assertError(() -> Body.parse("{\"x\":1.0}").integer("x", 0, 10), 400, "INVALID_FIELD", "x");
        assertError(() -> Body.parse("{\"x\":\"  \"}").string("x", 10), 400, "INVALID_FIELD", "x");
    }

    static void assertError(Runnable r, int status, String code, String field) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(DashboardException.class, e -> {
            assertThat(e.status()).isEqualTo(status);
            assertThat(e.errorCode()).isEqualTo(code);
            assertThat(e.field()).isEqualTo(field);
        });
    }
}
