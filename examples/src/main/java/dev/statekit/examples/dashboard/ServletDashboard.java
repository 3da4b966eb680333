package dev.statekit.examples.dashboard;

import dev.statekit.dashboard.Dashboard;
import dev.statekit.dashboard.DashboardServlet;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;

/**
 * The dashboard in a servlet container: a {@link DashboardServlet} registered at the dashboard's
 * base path and below; the container's authentication gives each request its principal.
 */
public final class ServletDashboard {
    private ServletDashboard() {}

    /**
     * Registers {@code dashboard} in {@code context}, e.g. from a {@code ServletContextListener}.
     *
     * @param context   the web application's context
     * @param dashboard the dashboard
     * @return the servlet's registration
     */
    public static ServletRegistration.Dynamic register(ServletContext context, Dashboard dashboard) {
        ServletRegistration.Dynamic servlet = context.addServlet("statekit-dashboard", new DashboardServlet(dashboard));
        servlet.addMapping(dashboard.basePath() + "/*");
        return servlet;
    }
}
