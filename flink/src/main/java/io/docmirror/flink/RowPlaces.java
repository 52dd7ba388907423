package io.docmirror.flink;

import io.docmirror.mirror.iceberg.RowPlace;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A document's rows as the writer's keyed state holds them: a few bytes per row, each table and file named once
 * (a document's rows are mostly in one file per table), read and written on every change of the document.
 */
final class RowPlaces {
    private RowPlaces() {
    }

    static byte[] encode(List<RowPlace> rows) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            List<String> names = new ArrayList<>();
            out.writeInt(rows.size());
            for (RowPlace row : rows) {
                writeName(out, names, row.table());
                writeName(out, names, row.file());
                out.writeLong(row.position());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode the rows " + rows, e);
        }
        return bytes.toByteArray();
    }

    /** A name seen before is written as its index; a new one as -1 and its text. */
    private static void writeName(DataOutputStream out, List<String> names, String name) throws IOException {
        int seen = names.indexOf(name);
        out.writeInt(seen);
        if (seen < 0) {
            out.writeUTF(name);
            names.add(name);
        }
    }

    static List<RowPlace> decode(byte[] encoded) {
        if (encoded == null) {
            return List.of();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            int count = in.readInt();
            List<String> names = new ArrayList<>();
            List<RowPlace> rows = new ArrayList<>(count);
            for (int row = 0; row < count; row++) {
                String table = readName(in, names);
                String file = readName(in, names);
                rows.add(new RowPlace(table, file, in.readLong()));
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot decode a document's rows (" + encoded.length + " bytes)", e);
        }
    }

    private static String readName(DataInputStream in, List<String> names) throws IOException {
        int seen = in.readInt();
        if (seen >= 0) {
            return names.get(seen);
        }
        String name = in.readUTF();
        names.add(name);
        return name;
    }
}
