package dev.statekit.spring;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.dashboard.Authorization;
import dev.statekit.dashboard.Dashboard;
import dev.statekit.dashboard.DashboardServlet;
import dev.statekit.spring.autoconfigure.StatekitAutoConfiguration;
import dev.statekit.spring.autoconfigure.StatekitDashboardAutoConfiguration;
import dev.statekit.store.memory.InMemoryStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The dashboard the starter serves, in a web application on a free port behind Spring Security
 * (HTTP basic, two users): its page and API under {@code statekit.dashboard.path}, read-only by
 * default, changes allowed by an {@link Authorization} bean with the signed-in user as the actor in
 * the task's history, a change sent by a page of another site refused; and when it is not served.
 */
class StatekitDashboardTest {
    enum State { OPEN, HELD, DONE }

    enum Event { HOLD, RELEASE, FINISH }

    static final Machine<State, Event> TICKET = Machine.builder("spring-ticket", State.class, Event.class)
            .initial(State.OPEN)
            .terminal(State.DONE)
            .transition(State.OPEN, Event.HOLD, State.HELD, USER)
            .transition(State.HELD, Event.RELEASE, State.OPEN, USER)
            .transition(State.OPEN, Event.FINISH, State.DONE, SYSTEM)
            .build();

    static final ObjectMapper JSON = new ObjectMapper();
    static final String PATH = "/ops/statekit";

    /** An application with a machine bean, its dashboard under /ops/statekit for signed-in users only. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Machine<State, Event> ticketMachine() {
            return TICKET;
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            // The dashboard refuses changes from other sites itself (Origin, Sec-Fetch-Site), and its page
            // sends no CSRF token of Spring's: its path is left out of Spring Security's CSRF check.
            http.authorizeHttpRequests(a -> a.requestMatchers(PATH + "/**").authenticated().anyRequest().permitAll())
                    .httpBasic(Customizer.withDefaults())
                    .csrf(c -> c.ignoringRequestMatchers(PATH + "/**"));
            return http.build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ada").password("{noop}ada-secret").roles("OPS").build(),
                    User.withUsername("bob").password("{noop}bob-secret").roles("VIEW").build());
        }
    }

    /** The application with an authorization: ada may change anything, bob nothing. */
    @Configuration(proxyBeanMethods = false)
    @Import(App.class)
    static class AppWithAuthorization {
        @Bean
        Authorization dashboardAuthorization() {
            return new Authorization() {
                @Override
                public boolean allows(@Nullable String user, String action, Target target) {
                    return "ada".equals(user) && action.equals("hold");
                }

                @Override
                public boolean mayChange(@Nullable String user) {
                    return "ada".equals(user) || "bob".equals(user);
                }
            };
        }
    }

    record Reply(int status, String type, String body) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    final HttpClient http = HttpClient.newHttpClient();

    static ConfigurableApplicationContext start(Class<?> app, String... more) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.datasource.url=jdbc:h2:mem:dash-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
                "--statekit.store.create-schema-if-missing=true", "--statekit.dashboard.path=" + PATH));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(app).run(args.toArray(String[]::new));
    }

    static String base(ConfigurableApplicationContext app) {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    Reply send(String method, String url, @Nullable String user, @Nullable String origin,
               @Nullable String json) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8)));
        }
        if (origin != null) b.header("Origin", origin);
        if (json != null) b.header("Content-Type", "application/json");
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
    }

    static long ticket(ConfigurableApplicationContext app) {
        return app.getBean(TransitionEngine.class).create(TICKET, TaskSpec.defaults()).task().id();
    }

    @Test
    void theDashboardIsServedUnderItsPathBehindTheApplicationsSecurityAndIsReadOnlyByDefault() throws Exception {
        try (ConfigurableApplicationContext app = start(App.class)) {
            String base = base(app);
            long id = ticket(app);

            assertThat(send("GET", base + PATH, null, null, null).status()).as("no user: the application's security answers").isEqualTo(401);
            Reply page = send("GET", base + PATH, "bob", null, null);
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.type()).startsWith("text/html");
            assertThat(page.body()).contains(PATH + "/assets/");
            Reply script = send("GET", base + PATH + "/assets/app.js", "bob", null, null);
            assertThat(script.status()).isEqualTo(200);
            assertThat(script.type()).startsWith("text/javascript");

            JsonNode overview = send("GET", base + PATH + "/api/overview", "bob", null, null).json();
            assertThat(overview.path("system").asText()).isEqualTo("statekit");
            assertThat(overview.path("user").asText()).isEqualTo("bob");
            assertThat(overview.path("readOnly").asBoolean()).isTrue();
            assertThat(overview.toString()).contains("spring-ticket");
            JsonNode task = send("GET", base + PATH + "/api/tasks/" + id, "ada", null, null).json();
            assertThat(task.toString()).contains("\"OPEN\"");

            Reply refused = send("POST", base + PATH + "/api/tasks/" + id + "/events", "ada", base, "{\"event\":\"HOLD\"}");
            assertThat(refused.status()).isEqualTo(403);
            assertThat(refused.json().path("error_code").asText()).isEqualTo("FORBIDDEN");
            assertThat(app.getBean(TransitionEngine.class).find(TICKET, id).orElseThrow().state()).isEqualTo(State.OPEN);
        }
    }

    @Test
    void anAuthorizationBeanLetsItsUsersChangeTasksAsThemselvesAndAPageOfAnotherSiteChangesNothing() throws Exception {
        try (ConfigurableApplicationContext app = start(AppWithAuthorization.class)) {
            String base = base(app);
            long id = ticket(app);
            String events = base + PATH + "/api/tasks/" + id + "/events";

            assertThat(send("GET", base + PATH + "/api/overview", "ada", null, null).json().path("readOnly").asBoolean()).isFalse();
            JsonNode overview = send("GET", base + PATH + "/api/overview", "bob", null, null).json();
            assertThat(overview.path("readOnly").asBoolean()).isFalse();
            assertThat(overview.path("user").asText()).isEqualTo("bob");

            Reply crossSite = send("POST", events, "ada", "http://evil.example", "{\"event\":\"HOLD\"}");
            assertThat(crossSite.status()).isEqualTo(403);
            assertThat(crossSite.json().path("error_code").asText()).isEqualTo("CROSS_SITE_REQUEST");
            Reply bob = send("POST", events, "bob", base, "{\"event\":\"HOLD\"}");
            assertThat(bob.status()).isEqualTo(403);
            assertThat(bob.json().path("error_code").asText()).isEqualTo("FORBIDDEN");
            assertThat(app.getBean(TransitionEngine.class).find(TICKET, id).orElseThrow().state()).isEqualTo(State.OPEN);

            Reply applied = send("POST", events, "ada", base, "{\"event\":\"HOLD\"}");
            assertThat(applied.status()).as(applied.body()).isEqualTo(200);
            assertThat(app.getBean(TransitionEngine.class).find(TICKET, id).orElseThrow().state()).isEqualTo(State.HELD);
            JsonNode history = send("GET", base + PATH + "/api/tasks/" + id, "bob", null, null).json().path("history");
            JsonNode hold = null;
            for (JsonNode e : history) if ("HOLD".equals(e.path("event").asText())) hold = e;
            assertThat(hold).as(history.toString()).isNotNull();
            assertThat(hold.path("actor").asText()).isEqualTo("ada");
            assertThat(hold.path("source").asText()).isEqualTo("USER");
        }
    }

    @Test
    void readOnlyFalseLetsEverySignedInUserChange() throws Exception {
        try (ConfigurableApplicationContext app = start(App.class, "--statekit.dashboard.read-only=false", "--statekit.dashboard.name=tickets",
                "--statekit.dashboard.allowed-origins=https://ops.example.com")) {
            String base = base(app);
            long id = ticket(app);
            JsonNode overview = send("GET", base + PATH + "/api/overview", "bob", null, null).json();
            assertThat(overview.path("system").asText()).isEqualTo("tickets");
            assertThat(overview.path("readOnly").asBoolean()).isFalse();
            Reply anotherSite = send("POST", base + PATH + "/api/tasks/" + id + "/events", "bob", "https://elsewhere.example.com", "{\"event\":\"HOLD\"}");
            assertThat(anotherSite.status()).isEqualTo(403);
            assertThat(anotherSite.json().path("error_code").asText()).isEqualTo("CROSS_SITE_REQUEST");
            Reply applied = send("POST", base + PATH + "/api/tasks/" + id + "/events", "bob", "https://ops.example.com", "{\"event\":\"HOLD\"}");
            assertThat(applied.status()).as(applied.body()).isEqualTo(200);
            assertThat(app.getBean(TransitionEngine.class).find(TICKET, id).orElseThrow().state()).isEqualTo(State.HELD);
        }
    }

    /** A store and a machine, without a DataSource. */
    @Configuration(proxyBeanMethods = false)
    static class Machines {
        @Bean
        InMemoryStore store() {
            return new InMemoryStore();
        }

        @Bean
        Machine<State, Event> ticketMachine() {
            return TICKET;
        }
    }

    static final AutoConfigurations AUTO = AutoConfigurations.of(StatekitAutoConfiguration.class, StatekitDashboardAutoConfiguration.class);

    @Test
    void itIsServedOnlyInAServletWebApplicationWithTheDashboardAndAMachineUnlessDisabled() {
        WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(AUTO);
        web.withUserConfiguration(Machines.class).run(context -> {
            assertThat(context).hasSingleBean(Dashboard.class);
            ServletRegistrationBean<?> servlet = context.getBean("statekitDashboardServlet", ServletRegistrationBean.class);
            assertThat(servlet.getServlet()).isInstanceOf(DashboardServlet.class);
            assertThat(servlet.getUrlMappings()).containsExactly("/statekit/*");
            assertThat(context.getBean(Dashboard.class).basePath()).isEqualTo("/statekit");
        });
        web.withUserConfiguration(Machines.class).withPropertyValues("statekit.dashboard.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(Dashboard.class).doesNotHaveBean("statekitDashboardServlet"));
        web.withUserConfiguration(Machines.class).withClassLoader(new FilteredClassLoader(Dashboard.class))
                .run(context -> assertThat(context).doesNotHaveBean("statekitDashboardServlet"));
        web.withBean(InMemoryStore.class, InMemoryStore::new)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Dashboard.class).doesNotHaveBean("statekitDashboardServlet"));
        new ApplicationContextRunner().withConfiguration(AUTO).withUserConfiguration(Machines.class)
                .run(context -> assertThat(context).hasSingleBean(TransitionEngine.class).doesNotHaveBean(Dashboard.class));
    }
}
