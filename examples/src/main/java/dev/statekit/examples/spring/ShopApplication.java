package dev.statekit.examples.spring;

import dev.statekit.spring.WorkerRegistration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.PropertySource;

/**
 * The shop: a Spring Boot application on H2 by default (PostgreSQL with {@code spring.datasource.url}),
 * whose statekit beans come from statekit-spring-boot-starter. It declares one worker bean; the
 * engine, the store and the runtime are the starter's.
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
}
