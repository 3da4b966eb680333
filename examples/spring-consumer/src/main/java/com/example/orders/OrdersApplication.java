package com.example.orders;

import dev.statekit.spring.WorkerRegistration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** An application on the published statekit artifacts: orders whose shipments a worker bean packs. */
@SpringBootApplication
public class OrdersApplication {

    /**
     * Starts the application.
     *
     * @param args Spring Boot's command line
     */
    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    /**
     * The worker of shipments, run by the starter's runtime.
     *
     * @param packer the worker
     * @return its registration
     */
    @Bean
    WorkerRegistration<Shipments.State, Shipments.Event> shipmentWorker(Packer packer) {
        return WorkerRegistration.of(Shipments.SHIPMENT, packer);
    }
}
