package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** No public signature of the API packages mentions a type of an {@code .internal} package. */
class ApiHygieneTest {
    static final List<String> API_PACKAGES = List.of("dev.statekit.core", "dev.statekit.core.spi", "dev.statekit.core.runtime",
            "dev.statekit.core.ops", "dev.statekit.core.schedule", "dev.statekit.store", "dev.statekit.store.support", "dev.statekit.store.memory");

    /** Returns the names of the top-level and nested classes compiled into {@code pkg} (not its subpackages). */
    static Set<String> classesOf(String pkg) {
        String path = pkg.replace('.', '/');
        Set<String> names = new TreeSet<>();
        try {
            Enumeration<URL> roots = ApiHygieneTest.class.getClassLoader().getResources(path);
            for (URL url : Collections.list(roots)) {
                if (url.getProtocol().equals("file")) {
                    try (Stream<Path> files = Files.list(Paths.get(url.toURI()))) {
                        files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".class"))
                                .forEach(n -> names.add(pkg + "." + n.substring(0, n.length() - ".class".length())));
                    }
                } else if (url.getProtocol().equals("jar")) {
                    JarURLConnection connection = (JarURLConnection) url.openConnection();
                    connection.setUseCaches(false);
                    try (JarFile jar = connection.getJarFile()) {
                        for (JarEntry e : Collections.list(jar.entries())) {
                            String n = e.getName();
                            if (n.startsWith(path + "/") && n.endsWith(".class") && n.indexOf('/', path.length() + 1) < 0) {
                                names.add(n.substring(0, n.length() - ".class".length()).replace('/', '.'));
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        names.removeIf(n -> n.endsWith(".package-info") || n.endsWith(".module-info"));
        return names;
    }

    /** Returns whether {@code c} can be named outside its package: public, or a public or protected member of such a type. */
    static boolean isExported(Class<?> c) {
        if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) return false;
        int m = c.getModifiers();
        Class<?> outer = c.getEnclosingClass();
        if (outer == null) return Modifier.isPublic(m);
        return (Modifier.isPublic(m) || Modifier.isProtected(m)) && isExported(outer);
    }

    static boolean isVisible(Member m) {
        return !m.isSynthetic() && (Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers()));
    }

    /** Collects every mention of an internal type in {@code type}, described by {@code where}. */
    static void scan(Type type, String where, List<String> violations, Set<TypeVariable<?>> seen) {
        if (type instanceof Class<?> c) {
            while (c.isArray()) c = c.getComponentType();
            if (c.getPackageName().contains(".internal")) violations.add(where + " mentions " + c.getName());
            if (c.getEnclosingClass() != null) scan(c.getEnclosingClass(), where, violations, seen);
        } else if (type instanceof ParameterizedType p) {
            scan(p.getRawType(), where, violations, seen);
            if (p.getOwnerType() != null) scan(p.getOwnerType(), where, violations, seen);
            for (Type a : p.getActualTypeArguments()) scan(a, where, violations, seen);
        } else if (type instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) scan(b, where, violations, seen);
            for (Type b : w.getLowerBounds()) scan(b, where, violations, seen);
        } else if (type instanceof TypeVariable<?> v) {
            if (seen.add(v)) for (Type b : v.getBounds()) scan(b, where, violations, seen);
        } else if (type instanceof GenericArrayType g) {
            scan(g.getGenericComponentType(), where, violations, seen);
        }
    }

    static void scanTypeParameters(TypeVariable<?>[] params, String where, List<String> violations) {
        for (TypeVariable<?> v : params) {
            for (Type b : v.getBounds()) scan(b, where + " type parameter " + v.getName(), violations, new HashSet<>());
        }
    }

    /** Returns every public signature of {@code c} that mentions an internal type. */
    static List<String> violationsOf(Class<?> c) {
        List<String> v = new ArrayList<>();
        String name = c.getName();
        scanTypeParameters(c.getTypeParameters(), name, v);
        if (c.getGenericSuperclass() != null) scan(c.getGenericSuperclass(), name + " superclass", v, new HashSet<>());
        for (Type i : c.getGenericInterfaces()) scan(i, name + " interface", v, new HashSet<>());
        if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                scan(rc.getGenericType(), name + " record component " + rc.getName(), v, new HashSet<>());
            }
        }
        for (Field f : c.getDeclaredFields()) {
            if (isVisible(f)) scan(f.getGenericType(), name + "." + f.getName(), v, new HashSet<>());
        }
        List<Executable> executables = new ArrayList<>(List.of(c.getDeclaredMethods()));
        executables.addAll(List.<Constructor<?>>of(c.getDeclaredConstructors()));
        for (Executable e : executables) {
            if (!isVisible(e) || e instanceof Method m && m.isBridge()) continue;
            String where = name + "." + e.getName() + "(...)";
            scanTypeParameters(e.getTypeParameters(), where, v);
            if (e instanceof Method m) scan(m.getGenericReturnType(), where + " return type", v, new HashSet<>());
            for (Type p : e.getGenericParameterTypes()) scan(p, where + " parameter", v, new HashSet<>());
            for (Type x : e.getGenericExceptionTypes()) scan(x, where + " throws", v, new HashSet<>());
        }
        return v;
    }

    static Class<?> load(String name) {
        try {
            return Class.forName(name, false, ApiHygieneTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void findsTheApiClasses() {
        assertThat(classesOf("dev.statekit.core")).contains(
                "dev.statekit.core.Machine", "dev.statekit.core.MachineBuilder", "dev.statekit.core.MachineBuilder$RowBuilder",
                "dev.statekit.core.TransitionEngine", "dev.statekit.core.Outcome$Refused")
                .doesNotContain("dev.statekit.core.internal.SystemClock");
        assertThat(classesOf("dev.statekit.core.spi")).contains("dev.statekit.core.spi.ManualClock", "dev.statekit.core.spi.Clock");
        assertThat(classesOf("dev.statekit.store")).contains("dev.statekit.store.Store", "dev.statekit.store.TaskRecord$Builder");
        assertThat(classesOf("dev.statekit.store.memory")).contains("dev.statekit.store.memory.InMemoryStore");
        assertThat(classesOf("dev.statekit.core.internal")).contains("dev.statekit.core.internal.SystemClock");
    }

    @Test
    void detectsAnInternalTypeInASignature() {
        // the internal clock's own signatures name it: the check must see that
        assertThat(violationsOf(load("dev.statekit.core.internal.SystemClock")))
                .anySatisfy(s -> assertThat(s).contains("INSTANCE mentions dev.statekit.core.internal.SystemClock"));
        assertThat(violationsOf(Leaky.class)).containsExactlyInAnyOrder(
                LEAKY + " type parameter T mentions " + CLOCK,
                LEAKY + " interface mentions " + CLOCK,
                LEAKY + ".clocks mentions " + CLOCK,
                LEAKY + ".clocks(...) return type mentions " + CLOCK,
                LEAKY + ".take(...) parameter mentions " + CLOCK,
                LEAKY + ".generic(...) type parameter X mentions " + CLOCK,
                LEAKY + ".generic(...) parameter mentions " + CLOCK);
    }

    static final String LEAKY = Leaky.class.getName();
    static final String CLOCK = "dev.statekit.core.internal.SystemClock";

    /** A type whose signatures leak the internal clock in every way the check looks at. */
    public abstract static class Leaky<T extends Comparable<dev.statekit.core.internal.SystemClock>>
            implements Comparable<List<? extends dev.statekit.core.internal.SystemClock>> {
        public dev.statekit.core.internal.SystemClock[] clocks;
        protected abstract List<dev.statekit.core.internal.SystemClock> clocks();
        public abstract void take(Set<? super dev.statekit.core.internal.SystemClock> in);
        public abstract <X extends dev.statekit.core.internal.SystemClock> void generic(X x);
        private dev.statekit.core.internal.SystemClock hidden;     // not public: not reported

        dev.statekit.core.internal.SystemClock hidden() {
            return hidden;
        }
    }

    @Test
    void noPublicSignatureMentionsAnInternalType() {
        List<String> violations = new ArrayList<>();
        int scanned = 0;
        for (String pkg : API_PACKAGES) {
            for (String name : classesOf(pkg)) {
                Class<?> c = load(name);
                if (!isExported(c)) continue;
                scanned++;
                violations.addAll(violationsOf(c));
            }
        }
        assertThat(scanned).as("public API types scanned").isGreaterThan(30);
        assertThat(violations).isEmpty();
    }
}
