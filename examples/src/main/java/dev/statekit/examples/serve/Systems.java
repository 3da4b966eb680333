package dev.statekit.examples.serve;

import java.util.List;
import java.util.Optional;

/** The seed systems {@code examples serve} can run. */
public final class Systems {
    private Systems() {}

    /** Returns the factories of every served system, in the order usage lists them. */
    public static List<Service.Factory> all() {
        return List.of(
                dev.statekit.examples.serve.novelproofer.NovelProoferService.FACTORY,
                dev.statekit.examples.serve.readdo.ReadDoService.FACTORY,
                dev.statekit.examples.serve.etl.EtlService.FACTORY,
                dev.statekit.examples.serve.compression.CompressionService.FACTORY
        );
    }

    /** Returns the factory of the system named {@code name}. */
    public static Optional<Service.Factory> byName(String name) {
        return all().stream().filter(f -> f.name().equals(name)).findFirst();
    }

    /** Returns the names of the served systems. */
    public static List<String> names() {
        return all().stream().map(Service.Factory::name).toList();
    }
}
