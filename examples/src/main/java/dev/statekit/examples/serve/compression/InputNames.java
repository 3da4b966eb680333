package dev.statekit.examples.serve.compression;

import java.nio.file.Path;

/** The names of input files: a plain file name inside the input folder, nothing that leads out of it. */
final class InputNames {
    /** The longest name accepted. */
    static final int MAX_LENGTH = 255;

    private InputNames() {}

    /**
     * Returns the file {@code name} inside {@code folder}.
     *
     * @throws IllegalArgumentException saying why {@code name} is not a file name inside the folder
     */
    static Path resolve(Path folder, String name) {
        if (name.isEmpty() || name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("must be a file name of 1 to " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\' || c < ' ' || c == 0x7f) {
                throw new IllegalArgumentException("must be a file name inside the input folder, without a path or control characters");
            }
        }
        if (name.startsWith(".")) throw new IllegalArgumentException("must be a file name inside the input folder, not a hidden or relative name");
        Path base = folder.toAbsolutePath().normalize();
        Path file = base.resolve(name).normalize();
        if (!base.equals(file.getParent())) throw new IllegalArgumentException("must be a file name inside the input folder");
        return file;
    }
}
