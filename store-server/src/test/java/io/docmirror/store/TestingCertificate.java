package io.docmirror.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 made at test time with the JDK's keytool, for the store to serve TLS with,
 * and trusted by this JVM: it is added to a trust store of this JVM's own (in the temporary directory, named after
 * the process, removed at exit), which {@code javax.net.ssl.trustStore} then names. The JDK reads that property, and
 * the file, each time a TLS client sets up its default trust (the Cosmos DB SDK does for each client), so the SDK
 * checks the server's certificate and host name as it would against Azure. Every certificate made stays trusted, so
 * that two stores serving TLS at once (a test's own beside its class's) are both trusted. The property is set here,
 * when a test needs it, rather than by the build: a build-wide trust store that does not exist yet breaks every TLS
 * client a test makes before this one runs.
 */
public final class TestingCertificate {
    public static final String PASSWORD = "docmirror-test";
    private static final String ALIAS = "docmirror-store";

    private TestingCertificate() {
    }

    /**
     * Makes the server's keystore in {@code directory} and trusts its certificate; returns the keystore. The
     * certificate is also written as PEM, {@link #pem}, for clients outside the JVM.
     */
    public static Path serverKeystore(Path directory)
            throws IOException, InterruptedException, GeneralSecurityException {
        Files.createDirectories(directory);
        Path keystore = directory.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", ALIAS,
                "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1", "-ext",
                "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                keystore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD))
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool could not make a certificate: " + output);
        }
        trust(keystore);
        return keystore;
    }

    /** The certificate of the keystore {@link #serverKeystore} made, in PEM (what Node's NODE_EXTRA_CA_CERTS reads). */
    public static Path pem(Path keystore) {
        return keystore.resolveSibling("certificate.pem");
    }

    private static synchronized void trust(Path keystore) throws IOException, GeneralSecurityException {
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            server.load(in, PASSWORD.toCharArray());
        }
        Path trustStore = Path.of(System.getProperty("java.io.tmpdir"),
                "docmirror-test-truststore-" + ProcessHandle.current().pid() + ".p12");
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        if (Files.exists(trustStore)) {
            try (InputStream in = Files.newInputStream(trustStore)) {
                trusted.load(in, PASSWORD.toCharArray());
            }
        } else {
            trusted.load(null, null);
            trustStore.toFile().deleteOnExit();
        }
        Certificate certificate = server.getCertificate(ALIAS);
        trusted.setCertificateEntry(ALIAS + "-" + trusted.size(), certificate);
        // Written aside and moved in whole, so that a client reading the trust store meanwhile never sees half.
        Path written = Files.createTempFile(trustStore.getParent(), trustStore.getFileName().toString(), ".tmp");
        try (OutputStream out = Files.newOutputStream(written)) {
            trusted.store(out, PASSWORD.toCharArray());
        }
        Files.move(written, trustStore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(pem(keystore), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(certificate.getEncoded())
                + "\n-----END CERTIFICATE-----\n", StandardCharsets.US_ASCII);
        System.setProperty("javax.net.ssl.trustStore", trustStore.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", PASSWORD);
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    }
}
