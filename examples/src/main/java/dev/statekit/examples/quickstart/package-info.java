/** The quick start of README.md, as a program that a test runs. */
@NullMarked
package dev.statekit.examples.quickstart;

import org.jspecify.annotations.NullMarked;
