/** Throughput benchmarks, run with {@code gradle :core:bench}; see docs/benchmarks.md. */
@NullMarked
package dev.statekit.core.bench;

import org.jspecify.annotations.NullMarked;
