package io.docmirror.store.bulk;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into lines without decoding them (the store checks the UTF-8 itself). Reads in 1 MiB chunks;
 * strips a trailing {@code \r} and a UTF-8 byte order mark at the start of the stream.
 */
public final class JsonLinesReader {
    private final InputStream in;
    private final byte[] buffer = new byte[1 << 20];
    private int position;
    private int limit;
    private long lineNumber;
    private long bytesRead;
    private boolean atStart = true;

    public JsonLinesReader(InputStream in) {
        this.in = in;
    }

    /** The next line without its line break, or null at the end of the stream. */
    public byte[] next() throws IOException {
        byte[] pending = null;
        while (true) {
            if (position == limit && !fill()) {
                if (pending == null) {
                    return null;
                }
                return finish(pending);
            }
            int newline = position;
            while (newline < limit && buffer[newline] != '\n') {
                newline++;
            }
            byte[] chunk = Arrays.copyOfRange(buffer, position, newline);
            pending = pending == null ? chunk : concat(pending, chunk);
            if (newline < limit) {
                bytesRead += newline + 1 - position;
                position = newline + 1;
                return finish(pending);
            }
            bytesRead += limit - position;
            position = limit;
        }
    }

    /** The number of the line {@link #next()} returned last, from 1. */
    public long lineNumber() {
        return lineNumber;
    }

    public long bytesRead() {
        return bytesRead;
    }

    private boolean fill() throws IOException {
        int read = in.read(buffer);
        if (read <= 0) {
            return false;
        }
        position = 0;
        limit = read;
        return true;
    }

    private byte[] finish(byte[] line) {
        lineNumber++;
        int start = 0;
        if (atStart && line.length >= 3 && (line[0] & 0xff) == 0xEF && (line[1] & 0xff) == 0xBB && (line[2] & 0xff) == 0xBF) {
            start = 3;
        }
        atStart = false;
        int end = line.length > start && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
        return start == 0 && end == line.length ? line : Arrays.copyOfRange(line, start, end);
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] joined = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, joined, first.length, second.length);
        return joined;
    }
}
