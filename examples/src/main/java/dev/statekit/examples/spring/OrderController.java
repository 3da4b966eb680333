package dev.statekit.examples.spring;

import dev.statekit.core.TransitionEngine;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The shop's HTTP interface: {@code POST /orders?items=N} places an order, {@code GET /orders/{id}} reads one. */
@RestController
public class OrderController {
    private final OrderService orders;
    private final JdbcClient jdbc;
    private final TransitionEngine engine;

    /**
     * Creates the controller.
     *
     * @param orders the order service
     * @param jdbc   the application's database
     * @param engine the starter's engine
     */
    public OrderController(OrderService orders, JdbcClient jdbc, TransitionEngine engine) {
        this.orders = orders;
        this.jdbc = jdbc;
        this.engine = engine;
    }

    /**
     * Places an order.
     *
     * @param items how many items
     * @return 201 with the order's and its confirmation's ids
     */
    @PostMapping("/orders")
    public ResponseEntity<OrderService.Placed> place(@RequestParam int items) {
        return ResponseEntity.status(HttpStatus.CREATED).body(orders.place(items));
    }

    /**
     * Reads an order: its items, whether it is confirmed, and the state of its confirmation task.
     *
     * @param id the order
     * @return 200 with the order, 404 when there is none
     */
    @GetMapping("/orders/{id}")
    public ResponseEntity<Map<String, Object>> order(@PathVariable long id) {
        return jdbc.sql("select items, confirmed from shop_orders where id = ?").param(id)
                .query((rs, n) -> {
                    Map<String, Object> order = new LinkedHashMap<>();
                    order.put("order", id);
                    order.put("items", rs.getInt("items"));
                    order.put("confirmed", rs.getBoolean("confirmed"));
                    return order;
                })
                .optional()
                .map(ResponseEntity::ok)
                .orElse(ResponseEntity.notFound().build());
    }

    /**
     * Reads the state of a confirmation task.
     *
     * @param id the task
     * @return 200 with the state, 404 when there is no such task
     */
    @GetMapping("/confirmations/{id}")
    public ResponseEntity<Map<String, Object>> confirmation(@PathVariable long id) {
        return engine.find(Confirmations.CONFIRMATION, id)
                .<ResponseEntity<Map<String, Object>>>map(task -> ResponseEntity.ok(Map.of("confirmation", id, "state", task.state().name())))
                .orElse(ResponseEntity.notFound().build());
    }

    /**
     * Answers an order the stock cannot serve with 409.
     *
     * @param e the refusal
     * @return 409 with its message
     */
    @ExceptionHandler(IllegalArgumentException.class)
    public ResponseEntity<Map<String, String>> refused(IllegalArgumentException e) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", String.valueOf(e.getMessage())));
    }
}
