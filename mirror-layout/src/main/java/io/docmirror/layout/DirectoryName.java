package io.docmirror.layout;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The name of a directory that holds what belongs to a name (a container, a table), valid on every common file
 * system. A name of at most {@value #MAX_LENGTH} letters, digits, {@code _ . -} that starts with a letter or digit is
 * the directory's name as it is, so directories made before stay where they are. Any other name (longer, or with other
 * characters) becomes a readable prefix of it and a hash of the whole name: the same name always gets the same
 * directory, two names almost never share one, and none is {@code .}, {@code ..}, hidden, or holds a separator.
 * The directory of a directory's own name is that directory, so a name read back from the file system (as the SQL
 * endpoint lists containers) leads to the same place.
 */
public final class DirectoryName {
    /**
     * File names are at most 255 bytes on ext4, XFS, Btrfs, APFS and NTFS; directory names here are ASCII, a byte a
     * character. A legal container name (at most 255 characters of these) keeps its directory, and a child table's
     * name, its parent's with a suffix, is the one that grows past it.
     */
    public static final int MAX_LENGTH = 255;
    private static final Pattern AS_IS = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_.-]");
    /** 64 bits of SHA-256: no two names of one mirror share a hash in practice. */
    private static final int HASH_BYTES = 8;
    private static final int PREFIX_LENGTH = MAX_LENGTH - 1 - 2 * HASH_BYTES;

    private final String value;

    private DirectoryName(String value) {
        this.value = value;
    }

    public static DirectoryName of(String name) {
        if (name.length() <= MAX_LENGTH && AS_IS.matcher(name).matches()) {
            return new DirectoryName(name);
        }
        String readable = UNSAFE.matcher(name).replaceAll("_").replaceFirst("^[_.-]+", "");
        String hash = hash(name);
        return new DirectoryName(readable.isEmpty() ? hash
                : readable.substring(0, Math.min(readable.length(), PREFIX_LENGTH)) + "-" + hash);
    }

    private static String hash(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, HASH_BYTES);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }

    public String value() {
        return value;
    }

    @Override
    public String toString() {
        return value;
    }
}
