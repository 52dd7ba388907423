package io.docmirror.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 made at test time with the JDK's keytool, for the store to serve TLS with,
 * and trusted by this JVM: it is written into the trust store the build names in {@code javax.net.ssl.trustStore}
 * (the surefire configuration of operational-store, cosmos-source and cli), which the JDK reads when a TLS client
 * first needs it. So the Cosmos DB SDK checks the server's certificate and host name as it would against Azure.
 */
public final class TestingCertificate {
    public static final String PASSWORD = "docmirror-test";
    private static final String ALIAS = "docmirror-store";

    private TestingCertificate() {
    }

    /** Makes the server's keystore in {@code directory} and trusts its certificate; returns the keystore. */
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

    private static void trust(Path keystore) throws IOException, GeneralSecurityException {
        String trustStoreFile = System.getProperty("javax.net.ssl.trustStore");
        if (trustStoreFile == null) {
            throw new IllegalStateException("javax.net.ssl.trustStore is not set: run the tests through Maven, whose "
                    + "surefire configuration (operational-store/pom.xml) names the trust store");
        }
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            server.load(in, PASSWORD.toCharArray());
        }
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry(ALIAS, server.getCertificate(ALIAS));
        Path trustStore = Path.of(trustStoreFile);
        Files.createDirectories(trustStore.toAbsolutePath().getParent());
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trusted.store(out, System.getProperty("javax.net.ssl.trustStorePassword").toCharArray());
        }
    }
}
