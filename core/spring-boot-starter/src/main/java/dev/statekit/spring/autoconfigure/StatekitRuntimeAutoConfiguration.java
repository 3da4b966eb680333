package dev.statekit.spring.autoconfigure;

import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.spring.StatekitProperties;
import dev.statekit.spring.StatekitRuntimeCustomizer;
import dev.statekit.spring.StatekitRuntimeLifecycle;
import dev.statekit.spring.WorkerRegistration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The {@link TaskRuntime} serving the application's {@link WorkerRegistration} beans, started and
 * stopped with the context by a {@link StatekitRuntimeLifecycle}: made when at least one worker
 * bean exists and {@code statekit.runtime.enabled} is not false. An application's own
 * {@code TaskRuntime} bean replaces the runtime (and is started and stopped the same way), its own
 * {@code StatekitRuntimeLifecycle} bean the lifecycle.
 */
@AutoConfiguration(after = StatekitAutoConfiguration.class)
@ConditionalOnClass(TaskRuntime.class)
@ConditionalOnBean({TransitionEngine.class, WorkerRegistration.class})
@ConditionalOnProperty(prefix = "statekit.runtime", name = "enabled", havingValue = "true", matchIfMissing = true)
public class StatekitRuntimeAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public StatekitRuntimeAutoConfiguration() {}

    /**
     * The runtime, not started: every {@link WorkerRegistration} bean registered, every
     * {@link Machine} bean without a worker resolved ({@code resolves}), every
     * {@link RuntimeListener} bean added, the {@link ErrorClassifier} bean when there is one,
     * the properties applied, then the {@link StatekitRuntimeCustomizer} beans.
     *
     * @param engine        the engine
     * @param properties    the properties
     * @param registrations the worker beans
     * @param machines      the machine beans
     * @param listeners     the runtime listener beans
     * @param classifier    an error classifier bean, if any
     * @param customizers   the customizer beans
     * @return the runtime
     */
    @Bean
    @ConditionalOnMissingBean
    public TaskRuntime statekitRuntime(TransitionEngine engine, StatekitProperties properties,
                                       ObjectProvider<WorkerRegistration<?, ?>> registrations, ObjectProvider<Machine<?, ?>> machines,
                                       ObjectProvider<RuntimeListener> listeners, ObjectProvider<ErrorClassifier> classifier,
                                       ObjectProvider<StatekitRuntimeCustomizer> customizers) {
        StatekitProperties.Runtime p = properties.runtime();
        TaskRuntimeBuilder builder = TaskRuntime.builder(engine)
                .leaseDuration(p.leaseDuration())
                .pollInterval(p.pollInterval())
                .cancelGrace(p.cancelGrace())
                .forceCancelAfterGrace(p.forceCancelAfterGrace())
                .soleOwner(p.soleOwner())
                .retentionBatch(p.retentionBatch())
                .retentionInterval(p.retentionInterval());
        if (p.owner() != null) builder.owner(p.owner());
        if (p.workers() != null) builder.workers(p.workers());
        if (p.batchSize() != null) builder.batchSize(p.batchSize());
        if (p.heartbeat() != null) builder.heartbeat(p.heartbeat());
        List<WorkerRegistration<?, ?>> workers = registrations.orderedStream().collect(Collectors.toList());
        Set<String> served = new HashSet<>();
        for (WorkerRegistration<?, ?> w : workers) {
            w.registerWith(builder);
            served.add(w.machine().name());
        }
        machines.orderedStream().filter(m -> !served.contains(m.name())).forEach(builder::resolves);
        listeners.orderedStream().forEach(builder::listener);
        classifier.ifUnique(builder::classifier);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /**
     * Starts the runtime with the context and stops it with {@code statekit.runtime.shutdown-grace}.
     *
     * @param runtime    the runtime
     * @param properties the properties
     * @return the lifecycle
     */
    @Bean
    @ConditionalOnMissingBean
    public StatekitRuntimeLifecycle statekitRuntimeLifecycle(TaskRuntime runtime, StatekitProperties properties) {
        return new StatekitRuntimeLifecycle(runtime, properties.runtime().shutdownGrace());
    }
}
