package io.docmirror.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 made at test time with the JDK's keytool, for the store to serve TLS with,
 * and trusted by this JVM: it is written into a trust store of its own, which {@code javax.net.ssl.trustStore} then
 * names. The JDK reads that property, and the file, each time a TLS client sets up its default trust (the Cosmos DB
 * SDK does for each client), so the SDK checks the server's certificate and host name as it would against Azure.
 * The property is set here, when a test needs it, rather than by the build: a build-wide trust store that does not
 * exist yet breaks every TLS client a test makes before this one runs.
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
        trust(keystore, directory.resolve("truststore.p12"));
        return keystore;
    }

    /** The certificate of the keystore {@link #serverKeystore} made, in PEM (what Node's NODE_EXTRA_CA_CERTS reads). */
    public static Path pem(Path keystore) {
        return keystore.resolveSibling("certificate.pem");
    }

    private static void trust(Path keystore, Path trustStore) throws IOException, GeneralSecurityException {
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            server.load(in, PASSWORD.toCharArray());
        }
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        Certificate certificate = server.getCertificate(ALIAS);
        trusted.setCertificateEntry(ALIAS, certificate);
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trusted.store(out, PASSWORD.toCharArray());
        }
        Files.writeString(pem(keystore), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(certificate.getEncoded())
                + "\n-----END CERTIFICATE-----\n", StandardCharsets.US_ASCII);
        System.setProperty("javax.net.ssl.trustStore", trustStore.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", PASSWORD);
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    }
}
