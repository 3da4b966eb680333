package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** No public signature of {@code dev.statekit.jdbc} mentions a type of its {@code internal} package. */
class JdbcApiHygieneTest {
    static final List<Class<?>> API = List.of(JdbcStore.class, JdbcStoreBuilder.class, Dialect.class);

    @Test
    void publicSignaturesMentionNoInternalType() {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : API) {
            assertThat(Modifier.isPublic(type.getModifiers())).as("%s is public", type).isTrue();
            check(type.getName() + " extends", type.getGenericSuperclass(), leaks);
            for (Type i : type.getGenericInterfaces()) check(type.getName() + " implements", i, leaks);
            for (Method m : type.getDeclaredMethods()) if (exported(m.getModifiers())) signature(type, m, leaks);
            for (Constructor<?> c : type.getDeclaredConstructors()) if (exported(c.getModifiers())) signature(type, c, leaks);
            for (Field f : type.getDeclaredFields()) {
                if (exported(f.getModifiers())) check(type.getName() + "." + f.getName(), f.getGenericType(), leaks);
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void theApiTypesAreFinalOrEnums() {
        assertThat(Modifier.isFinal(JdbcStore.class.getModifiers())).isTrue();
        assertThat(Modifier.isFinal(JdbcStoreBuilder.class.getModifiers())).isTrue();
        assertThat(JdbcStore.class.getConstructors()).isEmpty();
        assertThat(JdbcStoreBuilder.class.getConstructors()).isEmpty();
    }

    private static boolean exported(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void signature(Class<?> owner, Executable e, List<String> leaks) {
        String where = owner.getName() + "." + e.getName();
        if (e instanceof Method m) check(where + " returns", m.getGenericReturnType(), leaks);
        for (Type p : e.getGenericParameterTypes()) check(where + " takes", p, leaks);
        for (Type x : e.getGenericExceptionTypes()) check(where + " throws", x, leaks);
    }

    private static void check(String where, Type type, List<String> leaks) {
        if (type == null) return;
        if (type instanceof Class<?> c) {
            Class<?> base = c;
            while (base.isArray()) base = base.getComponentType();
            if (base.getPackageName().contains(".internal")) leaks.add(where + " " + base.getName());
        } else if (type instanceof ParameterizedType p) {
            check(where, p.getRawType(), leaks);
            for (Type a : p.getActualTypeArguments()) check(where, a, leaks);
        } else if (type instanceof GenericArrayType g) {
            check(where, g.getGenericComponentType(), leaks);
        } else if (type instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) check(where, b, leaks);
            for (Type b : w.getLowerBounds()) check(where, b, leaks);
        } else if (type instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) if (b != Object.class) check(where, b, leaks);
        }
    }
}
