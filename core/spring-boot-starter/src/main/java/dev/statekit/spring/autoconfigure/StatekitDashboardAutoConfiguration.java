package dev.statekit.spring.autoconfigure;

import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.dashboard.Authorization;
import dev.statekit.dashboard.Dashboard;
import dev.statekit.dashboard.DashboardServlet;
import dev.statekit.spring.StatekitProperties;
import dev.statekit.spring.WorkerRegistration;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.context.annotation.Conditional;

/**
 * The dashboard of statekit-dashboard, served by a {@link DashboardServlet} at
 * {@code statekit.dashboard.path} in a servlet web application, behind the application's own
 * security: made when statekit-dashboard and the servlet API are present, the engine exists and
 * {@code statekit.dashboard.enabled} is not false. The user of a request is the principal the
 * servlet container (or Spring Security) gives it, and is the actor written in the history of every
 * change. The dashboard is read-only unless {@code statekit.dashboard.read-only=false} or the
 * application has an {@link Authorization} bean, which then decides. An application's own
 * {@link Dashboard} bean replaces the starter's (and is served the same way).
 */
@AutoConfiguration(after = {StatekitAutoConfiguration.class, StatekitRuntimeAutoConfiguration.class})
@ConditionalOnClass(name = {"dev.statekit.dashboard.DashboardServlet", "jakarta.servlet.http.HttpServlet"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(TransitionEngine.class)
@ConditionalOnProperty(prefix = "statekit.dashboard", name = "enabled", havingValue = "true", matchIfMissing = true)
public class StatekitDashboardAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public StatekitDashboardAutoConfiguration() {}

    /** Met when the application has a machine to show: a {@link Machine} or a {@link WorkerRegistration} bean. */
    static final class MachinesToShow extends AnyNestedCondition {
        MachinesToShow() {
            super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(Machine.class)
        static final class MachineBeans {}

        @ConditionalOnBean(WorkerRegistration.class)
        static final class WorkerBeans {}
    }

    /** Every signed-in user may do everything; nobody else may change anything. */
    private static final class SignedIn implements Authorization {
        @Override
        public boolean allows(@Nullable String user, String action, Target target) {
            return user != null;
        }

        @Override
        public boolean mayChange(@Nullable String user) {
            return user != null;
        }
    }

    /**
     * The dashboard over the engine: the machines of the {@link WorkerRegistration} beans and the
     * {@link Machine} beans (in bean order; their children's machines come along), under
     * {@code statekit.dashboard.path}, its user the request's principal, and the
     * {@link Authorization} bean if there is one, else read-only or, with
     * {@code statekit.dashboard.read-only=false}, every signed-in user may change.
     *
     * @param engine        the engine
     * @param properties    the properties
     * @param registrations the worker beans
     * @param machines      the machine beans
     * @param authorization an authorization bean, if any
     * @param runtime       the runtime, if any: the overview counts what waits as it claims
     * @return the dashboard
     */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(MachinesToShow.class)
    public Dashboard statekitDashboard(TransitionEngine engine, StatekitProperties properties,
                                       ObjectProvider<WorkerRegistration<?, ?>> registrations, ObjectProvider<Machine<?, ?>> machines,
                                       ObjectProvider<Authorization> authorization, ObjectProvider<TaskRuntime> runtime) {
        StatekitProperties.Dashboard p = properties.dashboard();
        Set<String> names = new LinkedHashSet<>();
        List<Machine<?, ?>> shown = new ArrayList<>();
        registrations.orderedStream().map(WorkerRegistration::machine).filter(m -> names.add(m.name())).forEach(shown::add);
        machines.orderedStream().filter(m -> names.add(m.name())).forEach(shown::add);
        Authorization rule = authorization.getIfUnique(() -> p.readOnly() ? Authorization.readOnly() : new SignedIn());
        Dashboard.Builder builder = Dashboard.builder(engine)
                .name(p.name())
                .basePath(p.path())
                .machines(shown)
                .identity(request -> {
                    Principal principal = request.principal();
                    return principal == null ? null : principal.getName();
                })
                .authorization(rule);
        if (p.allowedOrigins() != null) builder.allowedOrigins(p.allowedOrigins().toArray(String[]::new));
        TaskRuntime served = runtime.getIfUnique();
        if (served != null) builder.metrics(served::metrics);      // what waits, counted as the runtime claims
        return builder.build();
    }

    /**
     * The servlet of the dashboard, mapped at its base path and below, named {@code statekitDashboard}.
     *
     * @param dashboard the dashboard
     * @return the servlet's registration
     */
    @Bean
    @ConditionalOnBean(Dashboard.class)
    @ConditionalOnMissingBean(name = "statekitDashboardServlet")
    public ServletRegistrationBean<DashboardServlet> statekitDashboardServlet(Dashboard dashboard) {
        ServletRegistrationBean<DashboardServlet> registration =
                new ServletRegistrationBean<>(new DashboardServlet(dashboard), dashboard.basePath() + "/*");
        registration.setName("statekitDashboard");
        return registration;
    }
}
