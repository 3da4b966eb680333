package dev.statekit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;

/**
 * A typed attribute key: a name and how its values are written as the attribute's text and read
 * back. Attributes stay strings underneath (stores, tools and the history see the text); a key
 * lets code read and write them as values of their type:
 *
 * <pre>{@code
 * static final Attribute<Integer> INDEX = Attribute.integer("index");
 * engine.create(MACHINE, TaskSpec.defaults().attribute(INDEX, 7));
 * int index = task.get(INDEX);
 * }</pre>
 *
 * <p>A text that cannot be read as the key's type is reported with the key and the text
 * ({@link IllegalStateException} from {@link #decode}; {@link Task#get} adds the task). Immutable
 * and thread-safe; two keys are equal when their names and types are.
 *
 * @param <T> the type of the values
 */
public final class Attribute<T> {
    private final String name;
    private final String type;
    private final Function<? super T, String> encoder;
    private final Function<String, ? extends T> decoder;

    private Attribute(String name, String type, Function<? super T, String> encoder, Function<String, ? extends T> decoder) {
        if (Objects.requireNonNull(name, "name").isBlank()) throw new IllegalArgumentException("an attribute name must not be blank");
        this.name = name;
        this.type = Objects.requireNonNull(type, "type");
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.decoder = Objects.requireNonNull(decoder, "decoder");
    }

    /** A key whose values are the text itself. */
    public static Attribute<String> string(String name) {
        return new Attribute<>(name, "text", Function.identity(), Function.identity());
    }

    /** A key of {@code int} values, written in decimal. */
    public static Attribute<Integer> integer(String name) {
        return new Attribute<>(name, "an integer", String::valueOf, Integer::valueOf);
    }

    /** A key of {@code long} values, written in decimal. */
    public static Attribute<Long> longInteger(String name) {
        return new Attribute<>(name, "a long integer", String::valueOf, Long::valueOf);
    }

    /** A key of booleans, written {@code true} or {@code false} (nothing else is read). */
    public static Attribute<Boolean> bool(String name) {
        return new Attribute<>(name, "true or false", String::valueOf, text -> {
            if (text.equals("true")) return Boolean.TRUE;
            if (text.equals("false")) return Boolean.FALSE;
            throw new IllegalArgumentException("not true or false");
        });
    }

    /** A key of instants, written as ISO-8601 text in UTC ({@code 2031-04-05T13:30:00Z}). */
    public static Attribute<Instant> instant(String name) {
        return new Attribute<>(name, "an ISO-8601 instant", Instant::toString, Instant::parse);
    }

    /** A key of durations, written as ISO-8601 text ({@code PT1M30S}). */
    public static Attribute<Duration> duration(String name) {
        return new Attribute<>(name, "an ISO-8601 duration", Duration::toString, Duration::parse);
    }

    /** A key of the constants of {@code type}, written by name. */
    public static <E extends Enum<E>> Attribute<E> enumeration(String name, Class<E> type) {
        Objects.requireNonNull(type, "type");
        return new Attribute<>(name, "a constant of " + type.getSimpleName(), Enum::name, text -> Enum.valueOf(type, text));
    }

    /**
     * A key of values of another type, with how to write a value as text and read it back; a
     * decoder signals text it cannot read by throwing.
     *
     * @param type what the values are, for error messages ("a money amount")
     */
    public static <T> Attribute<T> of(String name, String type, Function<? super T, String> encoder,
                                      Function<String, ? extends T> decoder) {
        return new Attribute<>(name, type, encoder, decoder);
    }

    /** Returns the attribute's name: the key in the task's string attributes. */
    public String name() {
        return name;
    }

    /** Returns the text {@code value} is stored as. */
    public String encode(T value) {
        String text = encoder.apply(Objects.requireNonNull(value, "value"));
        return Objects.requireNonNull(text, () -> "the encoder of attribute " + name + " returned null");
    }

    /**
     * Returns the value {@code text} holds.
     *
     * @throws IllegalStateException naming the key, the text and the type when the text is not a
     *                               value of the key's type
     */
    public T decode(String text) {
        Objects.requireNonNull(text, "text");
        T value;
        try {
            value = decoder.apply(text);
        } catch (RuntimeException e) {
            throw new IllegalStateException("attribute " + name + " holds '" + text + "', which is not " + type, e);
        }
        if (value == null) throw new IllegalStateException("attribute " + name + " holds '" + text + "', which is not " + type);
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Attribute<?> a && a.name.equals(name) && a.type.equals(type);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + type.hashCode();
    }

    @Override
    public String toString() {
        return "Attribute[" + name + ", " + type + "]";
    }
}
