/** Checks that the documentation shows the examples' code as it is. */
@NullMarked
package dev.statekit.examples.docs;

import org.jspecify.annotations.NullMarked;
