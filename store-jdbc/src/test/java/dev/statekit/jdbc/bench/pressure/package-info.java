/**
 * The pressure and chaos benchmark of the JDBC store on PostgreSQL ({@link
 * dev.statekit.jdbc.bench.pressure.PressureBenchmark}): no-op tasks offered at a fixed rate and
 * served by a runtime while the database is put under pressure (a held transaction, long
 * repeatable-read readers, 1.5 times the rate, a killed process, a restarted server, terminated
 * backends, idle connections), sampled over time into tables, CSV files and plots; and an adapter
 * ({@link dev.statekit.jdbc.bench.pressure.HarnessAdapter}) that runs statekit in a third-party job
 * queue harness speaking its JSON-lines protocol.
 */
@NullMarked
package dev.statekit.jdbc.bench.pressure;

import org.jspecify.annotations.NullMarked;
