package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.jdbc.internal.AttributeCodec;
import dev.statekit.store.Attributes;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The attribute encoding: any attributes survive the round trip, and only well-formed text decodes. */
class AttributeCodecTest {

    @Provide
    Arbitrary<Map<String, String>> maps() {
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(12);
        Arbitrary<String> keys = any.filter(s -> !s.isBlank());
        return Arbitraries.maps(keys, any).ofMaxSize(6);
    }

    @Property(tries = 500)
    void anyAttributesSurviveTheRoundTrip(@ForAll("maps") Map<String, String> map) {
        Attributes attributes = Attributes.of(map);
        String text = AttributeCodec.encode(attributes);
        assertThat(AttributeCodec.decode(text)).isEqualTo(attributes);
        // nothing a database encoding could reject or mangle: no controls, no NUL, no surrogates
        assertThat(text.chars().filter(c -> c < 0x20 || c == 0x7f || Character.isSurrogate((char) c)).count()).isZero();
    }

    @Test
    void writesAPlainJsonObject() {
        assertThat(AttributeCodec.encode(Attributes.EMPTY)).isEqualTo("{}");
        assertThat(AttributeCodec.encode(Attributes.of("b", "2", "a", "x\"y\\z\n\u0000😀")))
                .isEqualTo("{\"a\":\"x\\\"y\\\\z\\n\\u0000\\ud83d\\ude00\",\"b\":\"2\"}");
        assertThat(AttributeCodec.decode(" { \"a\" : \"\\u0041\\/\\t\" } ")).isEqualTo(Attributes.of("a", "A/\t"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "}", "[]", "{\"a\":1}", "{\"a\":\"b\",}", "{\"a\":\"b\"} x", "{\"a\":\"b\",\"a\":\"c\"}",
            "{\"a\":\"\\x\"}", "{\"a\":\"\\u00g0\"}", "{\"a\":\"\\u00\"}", "{\" \":\"b\"}", "{\"a\":\"b\"", "{\"a\" \"b\"}",
            "{\"a\":\"tab\there\"}", "null"})
    void refusesEverythingElse(String text) {
        assertThatThrownBy(() -> AttributeCodec.decode(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
