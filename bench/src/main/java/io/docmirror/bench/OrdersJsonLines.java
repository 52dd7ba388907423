package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The demo's orders as they are loaded into the store, one JSON document a line: DuckDB's references read them. */
final class OrdersJsonLines {
    private OrdersJsonLines() {
    }

    /** Writes every order of {@code dataset} to {@code file}; returns it. */
    static Path write(DemoDataset dataset, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int index = 0; index < dataset.orders(); index++) {
                out.write(dataset.generator().order(index, dataset.placedAt(index)));
                out.write('\n');
            }
        }
        return file;
    }
}
