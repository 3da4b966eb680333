/**
 * The published dashboard ({@code statekit-dashboard}) in a host of its own, as docs/dashboard.md
 * shows it: {@link dev.statekit.examples.dashboard.PlainDashboard} on the JDK's HTTP server, and
 * {@link dev.statekit.examples.dashboard.ServletDashboard} registered in a servlet container.
 */
@NullMarked
package dev.statekit.examples.dashboard;

import org.jspecify.annotations.NullMarked;
