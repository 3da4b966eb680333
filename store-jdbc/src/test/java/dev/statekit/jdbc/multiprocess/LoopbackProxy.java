package dev.statekit.jdbc.multiprocess;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a loopback ephemeral port that forwards every connection to a target server,
 * and that can be cut: {@link #cut()} closes every forwarded connection and refuses new ones
 * (accepts and closes them at once) until {@link #restore()}. To its clients a cut looks like a
 * database that went away: connections break mid-query and new ones fail.
 */
final class LoopbackProxy implements AutoCloseable {
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Socket> open = new HashSet<>();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private boolean cut;
    private boolean closed;

    LoopbackProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        daemon("accept", this::acceptLoop).start();
    }

    /** Returns the loopback port clients connect to. */
    int port() {
        return server.getLocalPort();
    }

    /** Returns how many connections were refused while cut. */
    long refused() {
        return refused.get();
    }

    /** Returns how many connections were forwarded. */
    long accepted() {
        return accepted.get();
    }

    /** Closes every forwarded connection and refuses new ones until {@link #restore()}. */
    void cut() {
        List<Socket> sockets;
        synchronized (this) {
            cut = true;
            sockets = new ArrayList<>(open);
            open.clear();
        }
        for (Socket s : sockets) closeQuietly(s);
    }

    /** Forwards new connections again. */
    synchronized void restore() {
        cut = false;
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        cut();
        closeQuietly(server);
    }

    private void acceptLoop() {
        while (true) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;       // closed
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(client);
                    return;
                }
                if (cut) {
                    refused.incrementAndGet();
                    closeQuietly(client);
                    continue;
                }
            }
            daemon("connect", () -> forward(client)).start();
        }
    }

    private void forward(Socket client) {
        Socket upstream = new Socket();
        try {
            upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
        synchronized (this) {
            if (cut || closed) {
                refused.incrementAndGet();
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            open.add(client);
            open.add(upstream);
            accepted.incrementAndGet();
        }
        daemon("up", () -> pump(client, upstream)).start();
        pump(upstream, client);
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // cut, or one side went away: the pair ends
        } finally {
            synchronized (this) {
                open.remove(from);
                open.remove(to);
            }
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static Thread daemon(String role, Runnable body) {
        Thread t = new Thread(body, "statekit-proxy-" + role + "-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already closed
        }
    }
}
