package io.docmirror.mirror;

import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.TableEntry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.docmirror.mirror.manifest.ViewDefinitions.literal;

/**
 * The files a manifest version lists that cannot be read as it recorded them: missing, of another size than when
 * they were written (truncated, say), or, checked in depth, without a readable Parquet footer of the recorded row
 * count. Such a file fails every query of its table; {@code docmirror repair} mends it ({@link Repair}).
 */
public final class DamagedFiles {
    /** Where a damaged file belongs: {@code table orders__items}, {@code history}, {@code dead letters}. */
    public record Damage(String part, DataFile file, String reason) {
        @Override
        public String toString() {
            return file.path() + " (" + part + "): " + reason;
        }
    }

    private DamagedFiles() {
    }

    /** The damaged files of {@code manifest}, checked by size (a stat per file: cheap enough for every open). */
    public static List<Damage> bySize(Path containerDirectory, Manifest manifest) {
        List<Damage> damages = new ArrayList<>();
        forEachFile(manifest, (part, file) -> sizeDamage(containerDirectory, part, file).ifPresent(damages::add));
        return damages;
    }

    /** The damaged files of {@code manifest}, checked by size and by reading each file's Parquet footer. */
    public static List<Damage> inDepth(Path containerDirectory, Manifest manifest) {
        List<Damage> damages = new ArrayList<>();
        try (Connection connection = BackgroundDuckDb.connect(); Statement statement = connection.createStatement()) {
            forEachFile(manifest, (part, file) -> {
                Optional<Damage> bySize = sizeDamage(containerDirectory, part, file);
                if (bySize.isPresent()) {
                    damages.add(bySize.get());
                    return;
                }
                Path path = containerDirectory.resolve(file.path());
                try (ResultSet rows = statement.executeQuery("SELECT num_rows FROM parquet_file_metadata("
                        + literal(path.toString()) + ")")) {
                    long count = rows.next() ? rows.getLong(1) : -1;
                    if (count != file.rows()) {
                        damages.add(new Damage(part, file, "holds " + count + " rows, the manifest recorded "
                                + file.rows()));
                    }
                } catch (SQLException e) {
                    damages.add(new Damage(part, file, "cannot be read as Parquet: " + e.getMessage()));
                }
            });
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot check the files of the mirror of " + manifest.container(), e);
        }
        return damages;
    }

    private interface FileVisitor {
        void visit(String part, DataFile file);
    }

    private static void forEachFile(Manifest manifest, FileVisitor visitor) {
        for (TableEntry table : manifest.tables()) {
            table.files().forEach(file -> visitor.visit("table " + table.name(), file));
        }
        manifest.history().forEach(file -> visitor.visit("history", file));
        manifest.deadLetters().forEach(file -> visitor.visit("dead letters", file));
    }

    private static Optional<Damage> sizeDamage(Path containerDirectory, String part, DataFile file) {
        Path path = containerDirectory.resolve(file.path());
        try {
            long size = Files.size(path);
            return size == file.bytes() ? Optional.empty() : Optional.of(new Damage(part, file,
                    "is " + size + " bytes, the manifest recorded " + file.bytes()));
        } catch (NoSuchFileException e) {
            return Optional.of(new Damage(part, file, "is missing"));
        } catch (IOException e) {
            return Optional.of(new Damage(part, file, "cannot be read: " + e.getMessage()));
        }
    }
}
