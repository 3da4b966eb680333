package dev.statekit.examples.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Command-line options that both parse and document themselves: each {@link Option} has its name,
 * the placeholder of its value, its default, its description and the type it reads its value as.
 * {@code examples serve}, {@code examples demo} and every service declare theirs here once; the
 * usage lists them and {@link #parse} reads them, with the same messages everywhere:
 * {@code unexpected argument 'x'}, {@code --x is given twice}, {@code --x needs a value},
 * {@code unknown option --x…}, and the option's own {@code --x must be …, not 'v'}.
 */
public final class Options {
    private static final Options NONE = new Options(List.of());

    private final List<Option<?>> options;

    private Options(List<Option<?>> options) {
        this.options = List.copyOf(options);
    }

    /** Returns the options {@code options}, in the order the usage lists them. */
    public static Options of(Option<?>... options) {
        return new Options(List.of(options));
    }

    /** Returns no options. */
    public static Options none() {
        return NONE;
    }

    /** Returns these options followed by {@code more}. */
    public Options and(Options more) {
        List<Option<?>> all = new ArrayList<>(options);
        all.addAll(more.options);
        return new Options(all);
    }

    /** Returns the options in order. */
    public List<Option<?>> all() {
        return options;
    }

    /** Returns the option named {@code name} (without its dashes), if there is one. */
    public Optional<Option<?>> named(String name) {
        return options.stream().<Option<?>>map(o -> o).filter(o -> o.name().equals(name)).findFirst();
    }

    /** Returns the usage lines of the options, each indented by {@code indent}: {@code --name V   description (default d)}. */
    public String usage(String indent) {
        StringBuilder b = new StringBuilder();
        for (Option<?> o : options) b.append(String.format(Locale.ROOT, "%s%-26s %s%n", indent, o.usage(), o.help()));
        return b.toString();
    }

    /**
     * Reads {@code args}, every one an option of these.
     *
     * @param unknown what follows {@code unknown option --x} in the message for an option that is not one of these
     * @throws IllegalArgumentException saying what is wrong with {@code args}
     */
    public Values parse(List<String> args, String unknown) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) throw new IllegalArgumentException("unexpected argument '" + arg + "'");
            if (given.containsKey(arg.substring(2))) throw new IllegalArgumentException(arg + " is given twice");
            Option<?> option = named(arg.substring(2)).orElseThrow(() -> new IllegalArgumentException("unknown option " + arg + unknown));
            if (option.placeholder == null) {
                given.put(option.name(), "true");
                continue;
            }
            if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) throw new IllegalArgumentException(arg + " needs a value");
            String value = args.get(++i);
            option.read(value);
            given.put(option.name(), value);
        }
        return new Values(given);
    }

    /** The values of a command line's options, each read as its option's type. */
    public static final class Values {
        private static final Values EMPTY = new Values(Map.of());

        private final Map<String, String> given;

        private Values(Map<String, String> given) {
            this.given = Map.copyOf(given);
        }

        /** Returns no values: every option at its default. */
        public static Values empty() {
            return EMPTY;
        }

        /** Returns the value of {@code option}, or its default when not given. */
        public <T> T get(Option<T> option) {
            return find(option).orElseGet(() -> {
                T fallback = option.fallback;
                if (fallback == null) throw new IllegalStateException("--" + option.name() + " has no default; read it with find");
                return fallback;
            });
        }

        /** Returns the value of {@code option} when given. */
        public <T> Optional<T> find(Option<T> option) {
            String value = given.get(option.name());
            return value == null ? Optional.empty() : Optional.of(option.read(value));
        }

        /** Returns whether {@code option} is given. */
        public boolean has(Option<?> option) {
            return given.containsKey(option.name());
        }
    }

    /**
     * One option.
     *
     * @param <T> the type its value is read as
     */
    public static final class Option<T> {
        private final String name;
        private final @Nullable String placeholder;
        private final @Nullable T fallback;
        private final @Nullable String shownDefault;
        private final String description;
        private final Function<String, T> reader;

        private Option(String name, @Nullable String placeholder, @Nullable T fallback, @Nullable String shownDefault, String description,
                       Function<String, T> reader) {
            this.name = name;
            this.placeholder = placeholder;
            this.fallback = fallback;
            this.shownDefault = shownDefault;
            this.description = description;
            this.reader = reader;
        }

        /** Returns the name, without its dashes. */
        public String name() {
            return name;
        }

        /** Returns how the usage writes it: {@code --name PLACEHOLDER}, or {@code --name} for a switch. */
        public String usage() {
            return placeholder == null ? "--" + name : "--" + name + " " + placeholder;
        }

        /** Returns its description with its default. */
        public String help() {
            return shownDefault == null ? description : description + " (default " + shownDefault + ")";
        }

        /**
         * Returns this option whose values must also pass {@code check}; {@code mustBe} says what
         * they must be in the message of one that does not.
         */
        public Option<T> requiring(Predicate<T> check, String mustBe) {
            return new Option<>(name, placeholder, fallback, shownDefault, description, value -> {
                T t = reader.apply(value);
                if (!check.test(t)) throw invalid(name, mustBe, value);
                return t;
            });
        }

        T read(String value) {
            return reader.apply(value);
        }
    }

    /** A switch without a value: {@code true} when given. */
    public static Option<Boolean> flag(String name, String description) {
        return new Option<>(name, null, false, null, description, v -> true);
    }

    /** A text value, or {@code fallback} (null for none: read it with {@link Values#find}). */
    public static Option<String> text(String name, String placeholder, @Nullable String fallback, String description) {
        return new Option<>(name, placeholder, fallback, fallback == null ? null : fallback, description, v -> v);
    }

    /** A text value with {@code fallback}, shown in the usage as {@code shownDefault}. */
    public static Option<String> text(String name, String placeholder, @Nullable String fallback, String shownDefault, String description) {
        return new Option<>(name, placeholder, fallback, shownDefault, description, v -> v);
    }

    /** A path relative to the service's data folder, {@code fallback} by default (see {@link ServeContext#path}). */
    public static Option<String> path(String name, String placeholder, String fallback, String description) {
        return new Option<>(name, placeholder, fallback, "DATA/" + fallback, description, v -> v);
    }

    /** A whole number from {@code min} to {@code max}, or {@code fallback}. */
    public static Option<Long> number(String name, long fallback, long min, long max, String description) {
        return new Option<>(name, "N", fallback, Long.toString(fallback), description, v -> {
            try {
                long n = Long.parseLong(v.trim());
                if (n >= min && n <= max) return n;
            } catch (NumberFormatException e) {
                // reported below
            }
            throw invalid(name, "a number from " + min + " to " + max, v);
        });
    }

    /** A whole number from {@code min} to {@code max} that fits an int, or {@code fallback}. */
    public static Option<Integer> integer(String name, int fallback, int min, int max, String description) {
        Option<Long> n = number(name, fallback, min, max, description);
        return new Option<>(name, "N", fallback, Integer.toString(fallback), description, v -> (int) (long) n.read(v));
    }

    /** A number from 0 to 1, or {@code fallback}. */
    public static Option<Double> rate(String name, double fallback, String description) {
        return new Option<>(name, "R", fallback, trim(fallback), description, v -> {
            try {
                double d = Double.parseDouble(v);
                if (d >= 0 && d <= 1) return d;
            } catch (NumberFormatException e) {
                // reported below
            }
            throw invalid(name, "a number from 0 to 1", v);
        });
    }

    /** {@code true} or {@code false}, or {@code fallback}. */
    public static Option<Boolean> bool(String name, boolean fallback, String description) {
        return new Option<>(name, "true|false", fallback, Boolean.toString(fallback), description, v -> switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(name, "true or false", v);
        });
    }

    private static IllegalArgumentException invalid(String name, String mustBe, String value) {
        return new IllegalArgumentException("--" + name + " must be " + mustBe + ", not '" + value + "'");
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
