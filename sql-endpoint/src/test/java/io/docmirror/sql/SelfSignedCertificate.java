package io.docmirror.sql;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for TLS tests, made by the JDK's own keytool, as the PEM files a server reads (the
 * certificate is also what a client trusts).
 */
record SelfSignedCertificate(Path certificatePem, Path privateKeyPem) {
    private static final String STORE_PASSWORD = "changeit";

    static SelfSignedCertificate create(Path directory, String host) throws IOException, InterruptedException,
            GeneralSecurityException {
        Files.createDirectories(directory);
        Path store = directory.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "2", "-dname", "CN=" + host, "-ext", "SAN=dns:" + host
                        + ",ip:127.0.0.1", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD)
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, STORE_PASSWORD.toCharArray());
        }
        Certificate certificate = keyStore.getCertificate("server");
        PrivateKey key = (PrivateKey) keyStore.getKey("server", STORE_PASSWORD.toCharArray());
        Path certificatePem = Files.writeString(directory.resolve("server.crt"),
                pem("CERTIFICATE", certificate.getEncoded()));
        Path keyPem = Files.writeString(directory.resolve("server.key"), pem("PRIVATE KEY", key.getEncoded()));
        return new SelfSignedCertificate(certificatePem, keyPem);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
