package dev.statekit.examples.spring;

import dev.statekit.dashboard.Authorization;
import dev.statekit.spring.WorkerRegistration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.PropertySource;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The shop: a Spring Boot application on H2 by default (PostgreSQL with {@code spring.datasource.url}),
 * whose statekit beans come from statekit-spring-boot-starter. It declares one worker bean; the
 * engine, the store, the runtime and the dashboard (at {@code /statekit}) are the starter's. Spring
 * Security lets only the shop's operator, signed in over HTTP basic, reach the dashboard; the
 * {@link Authorization} bean lets the operator change what the dashboard offers, but for deleting
 * tasks in bulk.
 */
@SpringBootApplication
@PropertySource("classpath:dev/statekit/examples/spring/shop.properties")
public class ShopApplication {

    /** Creates the application's configuration; Spring calls it. */
    public ShopApplication() {}

    /**
     * Starts the shop.
     *
     * @param args Spring Boot's command line, for example {@code --server.port=8081}
     */
    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }

    /**
     * The worker of confirmations, registered with the starter's runtime.
     *
     * @param sender the worker
     * @return its registration
     */
    @Bean
    WorkerRegistration<Confirmations.State, Confirmations.Event> confirmationWorker(ConfirmationSender sender) {
        return WorkerRegistration.of(Confirmations.CONFIRMATION, sender);
    }

    /**
     * The shop's security: the dashboard for the operator, signed in over HTTP basic; the orders and
     * Actuator open.
     *
     * @param http      Spring Security's builder
     * @param dashboard the dashboard's path
     * @return the filter chain
     * @throws Exception when the chain cannot be built
     */
    @Bean
    SecurityFilterChain security(HttpSecurity http, @Value("${statekit.dashboard.path:/statekit}") String dashboard) throws Exception {
        http.authorizeHttpRequests(requests -> requests
                        .requestMatchers(dashboard, dashboard + "/**").hasRole("OPERATOR")
                        .anyRequest().permitAll())
                .httpBasic(Customizer.withDefaults())
                // The dashboard refuses a change sent by a page of another site itself; the order API takes no cookies.
                .csrf(csrf -> csrf.ignoringRequestMatchers(dashboard + "/**", "/orders/**"));
        return http.build();
    }

    /**
     * The shop's one operator, from {@code shop.operator.name} and {@code shop.operator.password}.
     *
     * @param name     the operator's name
     * @param password the operator's password, in Spring Security's {@code {id}encoded} form
     * @return the users
     */
    @Bean
    UserDetailsService operators(@Value("${shop.operator.name}") String name, @Value("${shop.operator.password}") String password) {
        return new InMemoryUserDetailsManager(User.withUsername(name).password(password).roles("OPERATOR").build());
    }

    /**
     * Who may change what on the dashboard: the signed-in operator everything but bulk deletes.
     *
     * @return the authorization
     */
    @Bean
    Authorization dashboardAuthorization() {
        return Authorization.allow((user, action, target) -> user != null && !action.equals("bulk-delete"));
    }
}
