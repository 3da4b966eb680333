/**
 * The statekit dashboard: a web page and its JSON operations API over
 * {@link dev.statekit.core.ops.TaskOperations}, with no web framework.
 * {@link dev.statekit.dashboard.Dashboard} is built over an engine and the machines it shows, and
 * served on the JDK's HTTP server ({@link dev.statekit.dashboard.Dashboard#mount}), as a servlet
 * ({@link dev.statekit.dashboard.DashboardServlet}), or on any server through
 * {@link dev.statekit.dashboard.DashboardRequest} and {@link dev.statekit.dashboard.DashboardResponse};
 * the host decides who may do what ({@link dev.statekit.dashboard.Authorization}) and, if it wants,
 * how the buttons act ({@link dev.statekit.dashboard.Actions}).
 */
@NullMarked
package dev.statekit.dashboard;

import org.jspecify.annotations.NullMarked;
