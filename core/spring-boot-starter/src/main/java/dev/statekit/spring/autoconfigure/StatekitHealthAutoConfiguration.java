package dev.statekit.spring.autoconfigure;

import dev.statekit.spring.StatekitHealthIndicator;
import dev.statekit.spring.StatekitRuntimeLifecycle;
import dev.statekit.spring.WorkerRegistration;
import dev.statekit.store.Store;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Actuator's {@code statekit} health component ({@link StatekitHealthIndicator}), when Spring Boot 3's
 * Actuator is present; off with {@code management.health.statekit.enabled=false}.
 */
@AutoConfiguration(after = {StatekitAutoConfiguration.class, StatekitRuntimeAutoConfiguration.class})
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(Store.class)
@ConditionalOnProperty(name = "management.health.statekit.enabled", havingValue = "true", matchIfMissing = true)
public class StatekitHealthAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public StatekitHealthAutoConfiguration() {}

    /**
     * The health indicator, named {@code statekit} in the health endpoint.
     *
     * @param store         the store
     * @param lifecycle     the runtime's lifecycle, if the application runs one
     * @param registrations the worker beans, whose queues it reports
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "statekitHealthIndicator")
    public StatekitHealthIndicator statekitHealthIndicator(Store store, ObjectProvider<StatekitRuntimeLifecycle> lifecycle,
                                                           ObjectProvider<WorkerRegistration<?, ?>> registrations) {
        return new StatekitHealthIndicator(store, lifecycle.getIfUnique(), registrations.orderedStream().collect(Collectors.toList()));
    }
}
