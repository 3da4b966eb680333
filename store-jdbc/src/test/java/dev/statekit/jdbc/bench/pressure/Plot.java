package dev.statekit.jdbc.bench.pressure;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Line charts over time drawn with java.awt into a PNG (headless): panels stacked one above the
 * other on a shared time axis, each with its series, and the spans of the faults shaded in every
 * panel. A NaN value leaves a gap in its line.
 */
final class Plot {
    /** One line: its name in the legend, its values (one per time), its colour. */
    record Series(String name, double[] values, Color color) {}

    /** One chart: its title (with the unit) and its lines. */
    record Panel(String title, List<Series> series) {}

    /** A shaded span of time, in seconds, with a label. */
    record Span(double from, double to, String label) {}

    static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
            new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};

    private static final int WIDTH = 1100;
    private static final int PANEL_HEIGHT = 230;
    private static final int LEFT = 80;
    private static final int RIGHT = 30;
    private static final int TOP = 40;
    private static final int GAP = 50;

    private Plot() {}

    /** Draws {@code panels} over the times {@code seconds} into {@code file}, titled {@code title}. */
    static void write(Path file, String title, double[] seconds, List<Panel> panels, List<Span> spans) throws IOException {
        int height = TOP + panels.size() * (PANEL_HEIGHT + GAP);
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            g.drawString(title, LEFT, 24);
            double tMax = 1;
            for (double t : seconds) tMax = Math.max(tMax, t);
            for (Span s : spans) tMax = Math.max(tMax, s.to());
            for (int i = 0; i < panels.size(); i++) {
                int y0 = TOP + i * (PANEL_HEIGHT + GAP) + 20;
                panel(g, panels.get(i), seconds, tMax, spans, y0, i == panels.size() - 1);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        if (!ImageIO.write(image, "png", file.toFile())) throw new IOException("no PNG writer");
    }

    private static void panel(Graphics2D g, Panel p, double[] seconds, double tMax, List<Span> spans, int y0, boolean last) {
        int w = WIDTH - LEFT - RIGHT;
        int h = PANEL_HEIGHT - 30;
        double vMax = 0;
        for (Series s : p.series()) {
            for (double v : s.values()) if (!Double.isNaN(v) && !Double.isInfinite(v)) vMax = Math.max(vMax, v);
        }
        vMax = nice(vMax <= 0 ? 1 : vMax * 1.05);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.setColor(Color.BLACK);
        g.drawString(p.title(), LEFT, y0 - 6);
        for (Span s : spans) {
            int x1 = LEFT + (int) (w * s.from() / tMax);
            int x2 = LEFT + (int) (w * Math.min(s.to(), tMax) / tMax);
            g.setColor(new Color(255, 200, 200, 110));
            g.fillRect(x1, y0, Math.max(1, x2 - x1), h);
            g.setColor(new Color(170, 60, 60));
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            g.drawString(s.label(), x1 + 3, y0 + 12);
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        FontMetrics fm = g.getFontMetrics();
        for (int k = 0; k <= 4; k++) {
            double v = vMax * k / 4;
            int y = y0 + h - (int) (h * k / 4.0);
            g.setColor(new Color(225, 225, 225));
            g.drawLine(LEFT, y, LEFT + w, y);
            g.setColor(Color.DARK_GRAY);
            String label = number(v);
            g.drawString(label, LEFT - 6 - fm.stringWidth(label), y + 4);
        }
        double step = nice(tMax / 8);
        for (double t = 0; t <= tMax + 1e-9; t += step) {
            int x = LEFT + (int) (w * t / tMax);
            g.setColor(new Color(235, 235, 235));
            g.drawLine(x, y0, x, y0 + h);
            g.setColor(Color.DARK_GRAY);
            String label = number(t) + (last ? " s" : "");
            g.drawString(label, x - fm.stringWidth(label) / 2, y0 + h + 14);
        }
        g.setColor(Color.GRAY);
        g.drawRect(LEFT, y0, w, h);
        int legendX = LEFT + w - 10;
        for (int i = p.series().size() - 1; i >= 0; i--) {
            Series s = p.series().get(i);
            g.setColor(s.color());
            g.setStroke(new BasicStroke(1.8f));
            Path2D.Double path = new Path2D.Double();
            boolean drawing = false;
            for (int j = 0; j < seconds.length && j < s.values().length; j++) {
                double v = s.values()[j];
                if (Double.isNaN(v) || Double.isInfinite(v)) {
                    drawing = false;
                    continue;
                }
                double x = LEFT + w * seconds[j] / tMax;
                double y = y0 + h - h * Math.min(v, vMax) / vMax;
                if (drawing) path.lineTo(x, y);
                else path.moveTo(x, y);
                drawing = true;
            }
            g.draw(path);
            for (int j = 0; j < seconds.length && j < s.values().length; j++) {      // a value between gaps is a dot
                if (!finite(s.values()[j]) || j > 0 && finite(s.values()[j - 1])
                        || j + 1 < s.values().length && j + 1 < seconds.length && finite(s.values()[j + 1])) continue;
                double x = LEFT + w * seconds[j] / tMax;
                double y = y0 + h - h * Math.min(s.values()[j], vMax) / vMax;
                g.fillOval((int) x - 3, (int) y - 3, 6, 6);
            }
            g.setStroke(new BasicStroke(1f));
            int tw = fm.stringWidth(s.name());
            legendX -= tw + 26;
            g.fillRect(legendX, y0 + 8, 14, 4);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), legendX + 18, y0 + 14);
        }
    }

    private static boolean finite(double v) {
        return !Double.isNaN(v) && !Double.isInfinite(v);
    }

    /** The smallest of 1, 2, 2.5 or 5 times a power of ten at least {@code v}. */
    static double nice(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) if (m * p >= v) return m * p;
        return 10 * p;
    }

    private static String number(double v) {
        if (v >= 1e9) return String.format(Locale.ROOT, "%.1fG", v / 1e9);
        if (v >= 1e6) return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        if (v >= 1e4) return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        if (v == Math.rint(v)) return String.format(Locale.ROOT, "%.0f", v);
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
