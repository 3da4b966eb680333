import java.io.PrintWriter;
import org.junit.platform.console.ConsoleLauncher;

/**
 * The JUnit Platform's console launcher, its output flushed line by line, so that the build reads each
 * test's result as it ends (compiled by each module's {@code compileTestLauncher} task, run as {@code java ... FlushingConsoleLauncher execute ...}).
 */
public final class FlushingConsoleLauncher {
    private FlushingConsoleLauncher() {}

    /** Runs the console launcher with {@code args} and exits with its exit code. */
    public static void main(String... args) {
        System.exit(ConsoleLauncher.run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args).getExitCode());
    }
}
