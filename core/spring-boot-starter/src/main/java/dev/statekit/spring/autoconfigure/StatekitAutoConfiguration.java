package dev.statekit.spring.autoconfigure;

import dev.statekit.core.Authorizer;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.TransitionEngineBuilder;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.JdbcStoreBuilder;
import dev.statekit.spring.SpringTransactionHooks;
import dev.statekit.spring.StatekitEngineCustomizer;
import dev.statekit.spring.StatekitProperties;
import dev.statekit.spring.WorkerRegistration;
import dev.statekit.store.Store;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * statekit's beans: the {@link JdbcStore} on the application's {@code DataSource} (joining its
 * Spring-managed transactions), the {@link TransitionEngine} with every {@link TransitionListener}
 * and {@link TaskInterceptor} bean, {@link TaskOperations}, and, when {@link WorkerRegistration}
 * beans exist, the {@code TaskRuntime} serving them ({@link StatekitRuntimeAutoConfiguration}). Each bean backs off when the application defines its own: a
 * {@link Store} bean replaces the JDBC store, a {@link TransitionEngine} bean the engine, and so on.
 * Ordered after the {@code DataSource}'s auto-configuration (named for Spring Boot 3 and 4).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnClass({TransitionEngine.class, JdbcStore.class})
@EnableConfigurationProperties(StatekitProperties.class)
public class StatekitAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public StatekitAutoConfiguration() {}

    /**
     * The JDBC store on the application's only (or primary) {@code DataSource}, its dialect detected
     * unless {@code statekit.store.dialect} names it.
     *
     * @param dataSource the application's data source
     * @param properties the properties
     * @return the store
     */
    @Bean
    @ConditionalOnMissingBean(Store.class)
    @ConditionalOnSingleCandidate(DataSource.class)
    public JdbcStore statekitStore(DataSource dataSource, StatekitProperties properties) {
        StatekitProperties.Store p = properties.store();
        JdbcStoreBuilder builder = JdbcStore.builder(dataSource)
                .tablePrefix(p.tablePrefix())
                .maxPayloadChars(p.maxPayloadChars())
                .createSchemaIfMissing(p.createSchemaIfMissing());
        if (p.dialect() != null) builder.dialect(p.dialect());
        if (p.joinTransactions()) builder.transactions(new SpringTransactionHooks(dataSource));
        return builder.build();
    }

    /**
     * The engine over the store, with every {@link TransitionListener} and {@link TaskInterceptor}
     * bean (in bean order), the {@link Clock} and {@link Authorizer} beans when there are, and the
     * {@link StatekitEngineCustomizer} beans applied last.
     *
     * @param store        the store
     * @param properties   the properties
     * @param listeners    the listener beans
     * @param interceptors the interceptor beans
     * @param clock        a clock bean, if any
     * @param authorizer   an authorizer bean, if any
     * @param customizers  the customizer beans
     * @return the engine
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(Store.class)
    public TransitionEngine statekitEngine(Store store, StatekitProperties properties, ObjectProvider<TransitionListener> listeners,
                                           ObjectProvider<TaskInterceptor> interceptors, ObjectProvider<Clock> clock,
                                           ObjectProvider<Authorizer> authorizer, ObjectProvider<StatekitEngineCustomizer> customizers) {
        TransitionEngineBuilder builder = TransitionEngine.builder()
                .store(store)
                .maxConflictRetries(properties.engine().maxConflictRetries())
                .awaitRecheck(properties.engine().awaitRecheck());
        listeners.orderedStream().forEach(builder::listener);
        interceptors.orderedStream().forEach(builder::interceptor);
        clock.ifUnique(builder::clock);
        authorizer.ifUnique(builder::authorizer);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /**
     * The operator's commands and reads over the engine.
     *
     * @param engine the engine
     * @return the operations
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(TransitionEngine.class)
    public TaskOperations statekitOperations(TransitionEngine engine) {
        return TaskOperations.of(engine);
    }
}
