package dev.statekit.examples.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Reads the parts of the pages under docs/ that their tests compare with the code: fenced blocks, sections and tables. */
public final class Markdown {
    /** The root of the project: the tests of a module run in the module's directory. */
    public static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private Markdown() {}

    /** Returns the text of {@code page}, a path relative to the root of the project. */
    public static String read(String page) throws IOException {
        return Files.readString(ROOT.resolve(page));
    }

    /**
     * Returns the fenced blocks whose opening line is exactly {@code "```" + language}, each as its
     * lines, unchanged ({@code language} "" stands for blocks without a language).
     */
    public static List<List<String>> blocks(String markdown, String language) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> current = null;
        boolean inBlock = false;
        for (String line : markdown.lines().collect(Collectors.toList())) {
            if (line.startsWith("```")) {
                if (inBlock) {
                    if (current != null) blocks.add(current);
                    current = null;
                } else if (line.equals("```" + language)) {
                    current = new ArrayList<>();
                }
                inBlock = !inBlock;
                continue;
            }
            if (current != null) current.add(line);
        }
        return blocks;
    }

    /**
     * Returns the section of {@code markdown} that begins with the first heading (of any level)
     * whose text starts with {@code heading}, up to the next heading of the same or a higher level.
     *
     * @throws IllegalArgumentException when there is no such heading
     */
    public static String section(String markdown, String heading) {
        List<String> lines = markdown.lines().collect(Collectors.toList());
        for (int i = 0; i < lines.size(); i++) {
            int level = level(lines.get(i));
            if (level == 0 || !lines.get(i).substring(level).strip().startsWith(heading)) continue;
            StringBuilder text = new StringBuilder(lines.get(i)).append('\n');
            for (int j = i + 1; j < lines.size(); j++) {
                int other = level(lines.get(j));
                if (other > 0 && other <= level) break;
                text.append(lines.get(j)).append('\n');
            }
            return text.toString();
        }
        throw new IllegalArgumentException("no heading starting with '" + heading + "'");
    }

    private static int level(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == '#') n++;
        return n > 0 && n < line.length() && line.charAt(n) == ' ' ? n : 0;
    }

    /** Returns the rows of the tables in {@code markdown}, each as its cells, stripped; header and rule rows left out. */
    public static List<List<String>> tableRows(String markdown) {
        List<List<String>> rows = new ArrayList<>();
        boolean header = true;
        for (String line : markdown.lines().collect(Collectors.toList())) {
            if (!line.startsWith("|")) {
                header = true;
                continue;
            }
            if (header) {        // the first row of a table is its header, the second its rule
                header = false;
                continue;
            }
            if (line.matches("\\|[-| :]+\\|")) continue;
            List<String> cells = new ArrayList<>();
            for (String cell : line.substring(1, line.lastIndexOf('|')).split("(?<!\\\\)\\|", -1)) cells.add(cell.strip());
            rows.add(cells);
        }
        return rows;
    }

    /** Returns the texts between backticks in {@code text}, in order. */
    public static List<String> code(String text) {
        List<String> spans = new ArrayList<>();
        int at = text.indexOf('`');
        while (at >= 0) {
            int end = text.indexOf('`', at + 1);
            if (end < 0) break;
            spans.add(text.substring(at + 1, end));
            at = text.indexOf('`', end + 1);
        }
        return spans;
    }
}
