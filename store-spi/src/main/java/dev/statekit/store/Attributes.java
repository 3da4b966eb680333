package dev.statekit.store;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * An immutable, sorted map of string attributes kept on a task: phase, model name, artifact
 * pointers, run id and whatever else the application records.
 *
 * <p>Instances are thread-safe values: {@link #equals} compares contents, iteration is in key
 * order (independent of locale). Keys are non-blank; values are non-null.
 */
public final class Attributes {
    /** The empty set of attributes. */
    public static final Attributes EMPTY = new Attributes(new String[0], new String[0]);

    private final String[] keys;     // sorted, no duplicates
    private final String[] values;
    private @Nullable Map<String, String> view;

    private Attributes(String[] keys, String[] values) {
        this.keys = keys;
        this.values = values;
    }

    /**
     * Returns attributes holding the entries of {@code map}.
     *
     * @throws NullPointerException if {@code map}, a key or a value is null
     * @throws IllegalArgumentException if a key is blank
     */
    public static Attributes of(Map<String, String> map) {
        Objects.requireNonNull(map, "map");
        if (map.isEmpty()) return EMPTY;
        TreeMap<String, String> sorted = new TreeMap<>();
        for (Map.Entry<String, String> e : map.entrySet()) {
            sorted.put(checkKey(e.getKey()), Objects.requireNonNull(e.getValue(), () -> "value of attribute " + e.getKey()));
        }
        return fromSorted(sorted);
    }

    /**
     * Returns attributes holding the given key/value pairs.
     *
     * @throws IllegalArgumentException if the number of arguments is odd or a key is blank
     */
    public static Attributes of(String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("expected key/value pairs, got " + keysAndValues.length + " strings");
        }
        TreeMap<String, String> sorted = new TreeMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            sorted.put(checkKey(keysAndValues[i]), Objects.requireNonNull(keysAndValues[i + 1], "value"));
        }
        return fromSorted(sorted);
    }

    private static Attributes fromSorted(TreeMap<String, String> sorted) {
        if (sorted.isEmpty()) return EMPTY;
        String[] k = sorted.keySet().toArray(new String[0]);
        String[] v = sorted.values().toArray(new String[0]);
        return new Attributes(k, v);
    }

    private static String checkKey(@Nullable String key) {
        Objects.requireNonNull(key, "attribute key");
        if (key.isBlank()) throw new IllegalArgumentException("attribute key must not be blank");
        return key;
    }

    /** Returns the value of {@code key}, or null when absent. */
    public @Nullable String get(String key) {
        int i = Arrays.binarySearch(keys, key);
        return i >= 0 ? values[i] : null;
    }

    /** Returns the value of {@code key}, or {@code fallback} when absent. */
    public String getOrDefault(String key, String fallback) {
        String v = get(key);
        return v != null ? v : fallback;
    }

    /** Returns whether {@code key} is present. */
    public boolean contains(String key) {
        return Arrays.binarySearch(keys, key) >= 0;
    }

    /** Returns the number of attributes. */
    public int size() {
        return keys.length;
    }

    /** Returns whether there are no attributes. */
    public boolean isEmpty() {
        return keys.length == 0;
    }

    /**
     * Returns these attributes with {@code changes} applied: a null value removes its key.
     * Returns {@code this} when nothing changes.
     *
     * @throws IllegalArgumentException if a key is blank
     */
    public Attributes with(Map<String, ? extends @Nullable String> changes) {
        if (changes.isEmpty()) return this;
        TreeMap<String, String> merged = new TreeMap<>(asMap());
        boolean changed = false;
        for (Map.Entry<String, ? extends @Nullable String> e : changes.entrySet()) {
            String key = checkKey(e.getKey());
            String value = e.getValue();
            String old = value == null ? merged.remove(key) : merged.put(key, value);
            changed |= !Objects.equals(old, value);
        }
        return changed ? fromSorted(merged) : this;
    }

    /** Returns these attributes with {@code key} set to {@code value}. */
    public Attributes with(String key, String value) {
        Objects.requireNonNull(value, "value");
        if (value.equals(get(key))) return this;
        TreeMap<String, String> merged = new TreeMap<>(asMap());
        merged.put(checkKey(key), value);
        return fromSorted(merged);
    }

    /** Returns an unmodifiable, sorted map view of these attributes. */
    public Map<String, String> asMap() {
        Map<String, String> v = view;
        if (v == null) {
            v = new View();
            view = v;
        }
        return v;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return this == o || (o instanceof Attributes a && Arrays.equals(keys, a.keys) && Arrays.equals(values, a.values));
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(keys) + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return asMap().toString();
    }

    /** A read-only map over the two arrays. */
    private final class View extends AbstractMap<String, String> {
        @Override
        public Set<Entry<String, String>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<String, String>> iterator() {
                    return new Iterator<>() {
                        int i;

                        @Override
                        public boolean hasNext() {
                            return i < keys.length;
                        }

                        @Override
                        public Entry<String, String> next() {
                            if (i >= keys.length) throw new NoSuchElementException();
                            Entry<String, String> e = new SimpleImmutableEntry<>(keys[i], values[i]);
                            i++;
                            return e;
                        }
                    };
                }

                @Override
                public int size() {
                    return keys.length;
                }
            };
        }

        @Override
        public @Nullable String get(@Nullable Object key) {
            return key instanceof String s ? Attributes.this.get(s) : null;
        }

        @Override
        public boolean containsKey(@Nullable Object key) {
            return key instanceof String s && Attributes.this.contains(s);
        }
    }
}
