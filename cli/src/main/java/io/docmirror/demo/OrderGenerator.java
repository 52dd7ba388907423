package io.docmirror.demo;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;

/**
 * Deterministic online orders for the {@code CustomersOrdersAndItems} scenario (about 1 KB each): id, customerId
 * (the partition key), a nested customer with billing and shipping addresses, shipping method, status, ISO-8601
 * timestamps, 1-8 line items each with a discounts array, a few optional fields, and a zip code that is sometimes a
 * number and sometimes a string. The same seed and index always give the same document, so benchmarks, tests and the
 * demo all see the same data.
 */
public final class OrderGenerator {
    private static final String[] FIRST = {"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken",
            "Margaret", "Leslie", "Radia", "Tim", "Sophie", "Niklaus", "Jean", "Hedy"};
    private static final String[] LAST = {"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen",
            "Thompson", "Hamilton", "Lamport", "Perlman", "Berners-Lee", "Wilson", "Wirth", "Sammet", "Lamarr"};
    private static final String[] CITIES = {"Seattle", "Austin", "Boston", "Denver", "Portland", "Chicago", "Miami",
            "Atlanta", "Phoenix", "Madison"};
    private static final String[] STATES = {"WA", "TX", "MA", "CO", "OR", "IL", "FL", "GA", "AZ", "WI"};
    private static final String[] STREETS = {"Main St", "Oak Ave", "Pine Rd", "Maple Dr", "Cedar Ln", "Elm St"};
    private static final String[] SHIPPING = {"standard", "express", "overnight", "pickup"};
    private static final String[] STATUS = {"placed", "paid", "shipped", "delivered", "cancelled", "returned"};
    private static final String[] PRODUCTS = {"keyboard", "mouse", "monitor", "laptop stand", "usb-c hub", "webcam",
            "headset", "desk lamp", "notebook", "pen set", "chair mat", "cable kit"};
    private static final String[] DISCOUNTS = {"WELCOME10", "SPRING", "LOYALTY", "BUNDLE", "CLEARANCE"};
    private static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");

    private final JsonFactory factory = new JsonFactory();
    private final long seed;
    private final int customers;

    /**
     * @param customers how many distinct customers (partition key values) the orders spread over
     */
    public OrderGenerator(long seed, int customers) {
        this.seed = seed;
        this.customers = customers;
    }

    /** The partition key value (customerId) of order number {@code index}. */
    public String customerId(long index) {
        return "customer-" + new SplittableRandom(seed * 1_000_003L + index).nextInt(customers);
    }

    /** Order number {@code index}, as compact JSON bytes. */
    public byte[] order(long index) {
        return order(index, EPOCH.plus(index * 7, ChronoUnit.SECONDS));
    }

    /** Order number {@code index}, placed at {@code placedAt}. */
    public byte[] order(long index, Instant placedAt) {
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + index);
        int customer = random.nextInt(customers);
        SplittableRandom customerRandom = new SplittableRandom(seed * 7_919L + customer);
        ByteArrayOutputStream out = new ByteArrayOutputStream(1200);
        try (JsonGenerator json = factory.createGenerator(out, JsonEncoding.UTF8)) {
            json.writeStartObject();
            json.writeStringField("id", "order-" + index);
            json.writeStringField("customerId", "customer-" + customer);
            json.writeStringField("orderNumber", String.format("ORD-%010d", index));
            json.writeObjectFieldStart("customer");
            String first = FIRST[customerRandom.nextInt(FIRST.length)];
            String last = LAST[customerRandom.nextInt(LAST.length)];
            json.writeStringField("firstName", first);
            json.writeStringField("lastName", last);
            json.writeStringField("email", (first + "." + last + customer).toLowerCase() + "@example.com");
            if (customerRandom.nextInt(3) == 0) {
                json.writeStringField("phone", "+1-555-" + (1000 + customerRandom.nextInt(9000)));
            }
            json.writeStringField("memberSince", EPOCH.minus(customerRandom.nextInt(2000), ChronoUnit.DAYS).toString());
            address(json, "billingAddress", customerRandom);
            address(json, "shippingAddress", customerRandom.nextInt(4) == 0 ? random : customerRandom);
            json.writeEndObject();
            json.writeStringField("orderDate", placedAt.toString());
            json.writeStringField("shippingMethod", SHIPPING[random.nextInt(SHIPPING.length)]);
            json.writeStringField("status", STATUS[random.nextInt(STATUS.length)]);
            if (random.nextInt(4) == 0) {
                json.writeStringField("giftMessage", "Happy birthday from " + FIRST[random.nextInt(FIRST.length)] + "!");
            }
            if (random.nextInt(5) == 0) {
                json.writeStringField("couponCode", DISCOUNTS[random.nextInt(DISCOUNTS.length)]);
            }
            int lines = 1 + random.nextInt(8);
            long totalCents = 0;
            json.writeArrayFieldStart("items");
            for (int line = 0; line < lines; line++) {
                json.writeStartObject();
                int product = random.nextInt(PRODUCTS.length);
                long priceCents = 199 + random.nextInt(50_000);
                int quantity = 1 + random.nextInt(4);
                json.writeStringField("sku", "SKU-" + (10_000 + product * 37 + random.nextInt(30)));
                json.writeStringField("name", PRODUCTS[product]);
                json.writeNumberField("quantity", quantity);
                json.writeNumberField("unitPrice", java.math.BigDecimal.valueOf(priceCents, 2));
                json.writeArrayFieldStart("discounts");
                int discounts = random.nextInt(3);
                for (int discount = 0; discount < discounts; discount++) {
                    json.writeStartObject();
                    json.writeStringField("code", DISCOUNTS[random.nextInt(DISCOUNTS.length)]);
                    json.writeNumberField("percent", 5 + random.nextInt(20));
                    json.writeEndObject();
                }
                json.writeEndArray();
                json.writeEndObject();
                totalCents += priceCents * quantity;
            }
            json.writeEndArray();
            json.writeNumberField("total", java.math.BigDecimal.valueOf(totalCents, 2));
            json.writeStringField("currency", "USD");
            json.writeStringField("updatedAt", placedAt.plus(random.nextInt(72), ChronoUnit.HOURS).toString());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void address(JsonGenerator json, String field, SplittableRandom random) throws IOException {
        int city = random.nextInt(CITIES.length);
        json.writeObjectFieldStart(field);
        json.writeStringField("street", (1 + random.nextInt(9999)) + " " + STREETS[random.nextInt(STREETS.length)]);
        json.writeStringField("city", CITIES[city]);
        json.writeStringField("state", STATES[city]);
        int zip = 10_000 + random.nextInt(89_999);
        // The field whose type varies: most zips are numbers, some are ZIP+4 strings.
        if (random.nextInt(5) == 0) {
            json.writeStringField("zip", zip + "-" + (1000 + random.nextInt(9000)));
        }
        else {
            json.writeNumberField("zip", zip);
        }
        json.writeStringField("country", "US");
        json.writeEndObject();
    }
}
