package io.docmirror.sql.flight;

import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.complex.writer.BaseWriter.ListWriter;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Answers to {@code GetSqlInfo} as Arrow rows of {@code GET_SQL_INFO_SCHEMA}: {@code info_name} and the
 * {@code value} dense union, each value written into the union's child of its type at the next free offset.
 */
final class SqlInfoRows {
    private SqlInfoRows() {
    }

    /** A new root with one row per entry of {@code answers}, in order; the caller closes it. */
    static VectorSchemaRoot of(List<Map.Entry<Integer, SqlInfoValue>> answers, BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(Schemas.GET_SQL_INFO_SCHEMA, allocator);
        try {
            root.allocateNew();
            UInt4Vector names = (UInt4Vector) root.getVector("info_name");
            DenseUnionVector values = (DenseUnionVector) root.getVector("value");
            int[] nextOffset = new int[6];
            for (int row = 0; row < answers.size(); row++) {
                SqlInfoValue value = answers.get(row).getValue();
                byte typeId = value.typeId();
                int offset = nextOffset[typeId]++;
                names.setSafe(row, answers.get(row).getKey());
                values.setTypeId(row, typeId);
                values.setOffset(row, offset);
                write(values, typeId, offset, value, allocator);
            }
            root.setRowCount(answers.size());
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static void write(DenseUnionVector values, byte typeId, int offset, SqlInfoValue value,
            BufferAllocator allocator) {
        if (value instanceof SqlInfoValue.Text text) {
            values.getVarCharVector(typeId).setSafe(offset, text.value().getBytes(StandardCharsets.UTF_8));
        } else if (value instanceof SqlInfoValue.Flag flag) {
            values.getBitVector(typeId).setSafe(offset, flag.value() ? 1 : 0);
        } else if (value instanceof SqlInfoValue.Number number) {
            values.getBigIntVector(typeId).setSafe(offset, number.value());
        } else if (value instanceof SqlInfoValue.Int32 int32) {
            values.getIntVector(typeId).setSafe(offset, int32.value());
        } else if (value instanceof SqlInfoValue.Texts texts) {
            ListVector lists = values.getList(typeId);
            UnionListWriter writer = lists.getWriter();
            writer.setPosition(offset);
            writer.startList();
            for (String text : texts.values()) {
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                try (ArrowBuf buffer = allocator.buffer(Math.max(1, bytes.length))) {
                    buffer.setBytes(0, bytes);
                    writer.writeVarChar(0, bytes.length, buffer);
                }
            }
            writer.endList();
        } else if (value instanceof SqlInfoValue.IntListMap map) {
            MapVector maps = values.getMap(typeId);
            UnionMapWriter writer = maps.getWriter();
            writer.setPosition(offset);
            writer.startMap();
            for (Map.Entry<Integer, List<Integer>> entry : map.values().entrySet()) {
                writer.startEntry();
                writer.key().integer().writeInt(entry.getKey());
                ListWriter list = writer.value().list();
                list.startList();
                for (int item : entry.getValue()) {
                    list.integer().writeInt(item);
                }
                list.endList();
                writer.endEntry();
            }
            writer.endMap();
        }
    }
}
