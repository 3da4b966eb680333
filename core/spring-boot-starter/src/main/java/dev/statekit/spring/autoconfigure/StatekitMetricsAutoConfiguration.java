package dev.statekit.spring.autoconfigure;

import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.micrometer.StatekitMetrics;
import dev.statekit.spring.StatekitProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The runtime's Micrometer meters ({@link StatekitMetrics}, see statekit-micrometer), when
 * statekit-micrometer is present, the application has a {@link MeterRegistry} and runs a runtime.
 * The {@code StatekitMetrics} bean is a runtime listener (the runtime adds it) and a
 * {@code MeterBinder}, bound to the application's registry (its primary one). Ordered after the
 * registry's auto-configuration (named for Spring Boot 3 and 4).
 */
@AutoConfiguration(after = {StatekitAutoConfiguration.class, StatekitRuntimeAutoConfiguration.class}, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry", "dev.statekit.micrometer.StatekitMetrics"})
@ConditionalOnBean(type = {"io.micrometer.core.instrument.MeterRegistry", "dev.statekit.core.runtime.TaskRuntime"})
public class StatekitMetricsAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public StatekitMetricsAutoConfiguration() {}

    /**
     * The meters of the runtime; its gauges read {@link TaskRuntime#metrics()} at most every
     * {@code statekit.metrics.refresh}.
     *
     * @param properties the properties
     * @param runtime    the runtime, looked up when a gauge is first read
     * @return the metrics
     */
    @Bean
    @ConditionalOnMissingBean
    public StatekitMetrics statekitMetrics(StatekitProperties properties, ObjectProvider<TaskRuntime> runtime) {
        return new StatekitMetrics(properties.metrics().refresh()).observe(() -> runtime.getObject().metrics());
    }

    /**
     * Binds the meters to the application's registry once every singleton exists, as Spring Boot's
     * Actuator does itself (binding twice to one registry does nothing).
     *
     * @param metrics    the meters
     * @param registries the registries
     * @return the binder
     */
    @Bean
    public static SmartInitializingSingleton statekitMetricsBinder(ObjectProvider<StatekitMetrics> metrics,
                                                                   ObjectProvider<MeterRegistry> registries) {
        return () -> metrics.ifAvailable(m -> registries.ifUnique(m::bindTo));
    }
}
