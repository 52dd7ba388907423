package io.docmirror.store.server;

import io.docmirror.store.StoreConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.KeyManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

/**
 * The server's TLS identity, from a PKCS#12 keystore holding its certificate and private key (what {@code keytool
 * -genkeypair -storetype PKCS12} or {@code openssl pkcs12 -export} write).
 */
final class ServerCertificate {
    private ServerCertificate() {
    }

    /**
     * @throws IllegalArgumentException naming the option when the file cannot be read or holds no usable key
     */
    static SslContext load(Path keystore, String password) {
        try (InputStream in = Files.newInputStream(keystore)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password.toCharArray());
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password.toCharArray());
            return SslContextBuilder.forServer(keys).build();
        } catch (IOException | GeneralSecurityException e) {
            IllegalArgumentException invalid = StoreConfig.HTTP_TLS_KEYSTORE.invalid(keystore, "cannot read a "
                    + "certificate and private key from it with " + StoreConfig.HTTP_TLS_KEYSTORE_PASSWORD.key() + ": "
                    + e.getMessage());
            invalid.initCause(e);
            throw invalid;
        }
    }
}
