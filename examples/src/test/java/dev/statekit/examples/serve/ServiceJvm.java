package dev.statekit.examples.serve;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a service JVM that a test starts: the program as installed (its jar and the
 * jars it runs on, given by the build in {@value #CLASS_PATH}; the test's own class path when run
 * otherwise), the client compiler alone and the serial collector (a service lives seconds here),
 * and the class-data archive the build made of a service's start ({@value #ARCHIVE}) when there is
 * one, which saves about a quarter of each start's CPU.
 */
public final class ServiceJvm {
    /** The system property holding the installed program's class path. */
    public static final String CLASS_PATH = "statekit.service.classpath";
    /** The system property naming the class-data archive made on that class path. */
    public static final String ARCHIVE = "statekit.service.archive";

    private ServiceJvm() {}

    /** Returns the java command, its options and the class path, up to the main class. */
    public static List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(options());
        command.add("-cp");
        command.add(classPath());
        return command;
    }

    /** Returns the java program of this JVM. */
    public static String java() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Returns the class path of a service. */
    public static String classPath() {
        String installed = System.getProperty(CLASS_PATH);
        return installed == null || installed.isBlank() ? System.getProperty("java.class.path") : installed;
    }

    /** Returns the JVM options of a service, the archive's included when it exists for this class path. */
    public static List<String> options() {
        List<String> options = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        String archive = System.getProperty(ARCHIVE);
        if (archive != null && System.getProperty(CLASS_PATH) != null && Files.isRegularFile(Path.of(archive))) {
            options.add("-XX:SharedArchiveFile=" + archive);
            // An archive that no longer matches its jars is not used; the JVM would say so on every start.
            options.add("-Xlog:cds=off,cds+dynamic=off");
        }
        return options;
    }
}
