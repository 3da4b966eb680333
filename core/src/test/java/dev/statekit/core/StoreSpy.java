package dev.statekit.core;

import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Store} over an {@link InMemoryStore} whose calls a test can follow: it records every
 * call, runs an action once after the next call of a method, and makes chosen calls fail without
 * reaching the store (a store that is unavailable for a moment).
 */
public final class StoreSpy implements InvocationHandler {
    /** The store every call reaches, unless it was made to fail. */
    public final InMemoryStore base = new InMemoryStore();
    /** The store to hand to the code under test. */
    public final Store store = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, this);

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Queue<Runnable>> after = new ConcurrentHashMap<>();
    private final List<Failure> failures = new CopyOnWriteArrayList<>();

    /** One call of the store: the method's name and its arguments. */
    public record Call(String method, List<@Nullable Object> args) {}

    private record Failure(String method, Predicate<List<@Nullable Object>> when, RuntimeException error, boolean once) {}

    /** Makes the next call of {@code method} throw {@code error}. */
    public void failNext(String method, RuntimeException error) {
        failures.add(new Failure(method, args -> true, error, true));
    }

    /** Makes every call of {@code method} whose arguments match {@code when} throw {@code error}. */
    public void failWhen(String method, Predicate<List<@Nullable Object>> when, RuntimeException error) {
        failures.add(new Failure(method, when, error, false));
    }

    /** Runs {@code action} once, right after the next call of {@code method} returned from the store. */
    public void afterNext(String method, Runnable action) {
        after.computeIfAbsent(method, m -> new ConcurrentLinkedQueue<>()).add(action);
    }

    /** Returns the calls of {@code method}, oldest first. */
    public List<Call> calls(String method) {
        List<Call> found = new ArrayList<>();
        for (Call c : calls) if (c.method().equals(method)) found.add(c);
        return found;
    }

    /** Forgets the calls recorded so far. */
    public void clear() {
        calls.clear();
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
        List<@Nullable Object> arguments = args == null ? List.of() : Arrays.asList(args);
        String name = method.getName();
        calls.add(new Call(name, arguments));
        for (Failure f : failures) {
            if (f.method().equals(name) && f.when().test(arguments)) {
                if (f.once()) failures.remove(f);
                throw f.error();
            }
        }
        Object result;
        try {
            result = method.invoke(base, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        Queue<Runnable> actions = after.get(name);
        Runnable next = actions == null ? null : actions.poll();
        if (next != null) next.run();
        return result;
    }
}
