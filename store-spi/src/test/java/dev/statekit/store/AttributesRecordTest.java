package dev.statekit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class AttributesRecordTest {

    @Test
    void iteratesInKeyOrderWhateverTheInsertionOrder() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("zeta", "1");
        m.put("Index", "2");
        m.put("ılık", "3");
        m.put("alpha", "4");
        Attributes a = Attributes.of(m);
        // natural String order: upper case before lower case, non-ASCII last; never the locale's collation
        assertThat(List.copyOf(a.asMap().keySet())).containsExactly("Index", "alpha", "zeta", "ılık");
        assertThat(a.toString()).isEqualTo("{Index=2, alpha=4, zeta=1, ılık=3}");
        assertThat(Attributes.of("b", "1", "a", "2").asMap().keySet()).containsExactly("a", "b");
    }

    @Test
    void readsValues() {
        Attributes a = Attributes.of("phase", "embed", "model", "m1");
        assertThat(a.get("phase")).isEqualTo("embed");
        assertThat(a.get("absent")).isNull();
        assertThat(a.getOrDefault("absent", "x")).isEqualTo("x");
        assertThat(a.getOrDefault("model", "x")).isEqualTo("m1");
        assertThat(a.contains("model")).isTrue();
        assertThat(a.contains("Model")).isFalse();
        assertThat(a.size()).isEqualTo(2);
        assertThat(a.isEmpty()).isFalse();
        assertThat(a.asMap()).containsEntry("phase", "embed").hasSize(2);
        assertThat(a.asMap().get(42)).isNull();
        assertThat(a.asMap().containsKey("phase")).isTrue();
    }

    @Test
    void emptyAttributesAreShared() {
        assertThat(Attributes.of(Map.of())).isSameAs(Attributes.EMPTY);
        assertThat(Attributes.of()).isSameAs(Attributes.EMPTY);
        assertThat(Attributes.EMPTY.isEmpty()).isTrue();
        assertThat(Attributes.EMPTY.size()).isZero();
        assertThat(Attributes.EMPTY.get("x")).isNull();
        assertThat(Attributes.EMPTY.asMap()).isEmpty();
    }

    @Test
    void withSetsReplacesAndRemoves() {
        Attributes a = Attributes.of("a", "1", "b", "2");
        Map<String, @Nullable String> changes = new HashMap<>();
        changes.put("a", "10");
        changes.put("b", null);
        changes.put("c", "3");
        Attributes b = a.with(changes);
        assertThat(b.asMap()).containsExactly(Map.entry("a", "10"), Map.entry("c", "3"));
        assertThat(a.asMap()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));   // unchanged
        assertThat(a.with("b", "5").asMap()).containsExactly(Map.entry("a", "1"), Map.entry("b", "5"));
        assertThat(a.with("0", "x").asMap().keySet()).containsExactly("0", "a", "b");
    }

    @Test
    void withReturnsTheSameInstanceWhenNothingChanges() {
        Attributes a = Attributes.of("a", "1");
        assertThat(a.with(Map.of())).isSameAs(a);
        assertThat(a.with(Map.of("a", "1"))).isSameAs(a);
        assertThat(a.with("a", "1")).isSameAs(a);
        Map<String, @Nullable String> removeAbsent = new HashMap<>();
        removeAbsent.put("zzz", null);
        assertThat(a.with(removeAbsent)).isSameAs(a);
    }

    @Test
    void removingTheLastAttributeGivesEmpty() {
        Map<String, @Nullable String> remove = new HashMap<>();
        remove.put("a", null);
        Attributes a = Attributes.of("a", "1").with(remove);
        assertThat(a).isSameAs(Attributes.EMPTY);
    }

    @Test
    void equalityIsByContent() {
        Attributes a = Attributes.of("x", "1", "y", "2");
        Attributes b = Attributes.of(Map.of("y", "2", "x", "1"));
        Attributes c = Attributes.EMPTY.with("y", "2").with("x", "1");
        assertThat(a).isEqualTo(b).isEqualTo(c).hasSameHashCodeAs(b).hasSameHashCodeAs(c);
        assertThat(a).isNotEqualTo(Attributes.of("x", "1", "y", "3"));
        assertThat(a).isNotEqualTo(Attributes.of("x", "1"));
        assertThat(a).isNotEqualTo(Attributes.of("x", "1", "z", "2"));
        assertThat(a.asMap()).isEqualTo(Map.of("x", "1", "y", "2"));
        assertThat(a).isNotEqualTo(a.asMap());
    }

    @Test
    void validatesKeysAndValues() {
        assertThatThrownBy(() -> Attributes.of("a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key/value pairs");
        assertThatThrownBy(() -> Attributes.of(" ", "v")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> Attributes.of("", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Attributes.of(Map.of("\t", "v"))).isInstanceOf(IllegalArgumentException.class);
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("a", null);
        assertThatThrownBy(() -> Attributes.of(nullValue)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("a");
        assertThatThrownBy(() -> Attributes.of("a", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Attributes.EMPTY.with(" ", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Attributes.EMPTY.with(Map.of(" ", "v"))).isInstanceOf(IllegalArgumentException.class);
        Map<String, @Nullable String> blankRemoval = new HashMap<>();
        blankRemoval.put("", null);
        assertThatThrownBy(() -> Attributes.of("a", "1").with(blankRemoval)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theMapViewIsReadOnly() {
        Map<String, String> view = Attributes.of("a", "1").asMap();
        assertThatThrownBy(() -> view.put("b", "2")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> view.remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> view.entrySet().iterator().next().setValue("x"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(view).containsExactly(Map.entry("a", "1"));
    }

    @Test
    void theSourceMapIsCopied() {
        Map<String, String> source = new HashMap<>(Map.of("a", "1"));
        Attributes a = Attributes.of(source);
        source.put("b", "2");
        assertThat(a.asMap()).containsOnlyKeys("a");
    }
}
