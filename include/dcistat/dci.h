/*
 * <dci.h>: the consumer interface of the UMA Data Capture Interface (The
 * Open Group, 1997), as dcistat's libdci implements it against dcistatd's
 * DCI Server. See dci(3) for the routines, the DCIReturn buffer modes and
 * "IMPLEMENTATION CHOICES" (where the specification gives no C signature
 * or no number, what is here is dcistat's).
 *
 * Build: cc $(pkg-config --cflags dci) prog.c $(pkg-config --libs dci)
 *
 * Every structure below is variable-length in the specification's way: a
 * size word counting the whole structure (a multiple of 4), a fixed part
 * of words and descriptors, then the variable part the descriptors point
 * into by offsets from the structure's start.
 */
#ifndef DCISTAT_DCI_H
#define DCISTAT_DCI_H

#include <uma.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef UMAUint4 DCIStatus;

/* Statuses (the specification names them; the numbers are dcistat's). */
#define DCI_SUCCESS 0u
#define DCI_NOTPRESENT                                                         \
	1u                 /* no such class, instance or datum, or             \
	                      one the caller may not read */
#define DCI_INVALIDARG 2u  /* an argument is malformed */
#define DCI_INVALIDDATA 3u /* the datum asked for has no valid value */
#define DCI_ALLOCATIONFAILURE                                                  \
	4u                         /* memory, or an answer beyond the server's \
	                              limit */
#define DCI_NOIMPLEMENTATION 5u    /* not implemented by this server */
#define DCI_SYSERROR 6u            /* a system call failed; see errno */
#define DCI_NOTINITIALIZED 7u      /* no DCI Server answers */
#define DCI_INTERRUPTED 8u         /* a signal interrupted the call */
#define DCI_METHODOPUNAVAILABLE 9u /* no provider offers the operation */
#define DCI_INVALIDDATAPRESENT                                                 \
	10u /* informational: some data returned                               \
	       is invalid (see DCIInvalidData) */
/* dcistat's: a caller-allocated buffer is too small (the DCIReturn's size
 * word, when the buffer holds one, says how much is needed); and
 * dciWaitEvent's timeout expired with no event. */
#define DCI_BUFFERTOOSMALL 11u
#define DCI_TIMEOUT 12u

/* The wildcard of a class level and of a datum id. */
#define DCI_ALL 0xffffffffu
/* The inputMask that wildcards every instance level. */
#define DCI_ALL_INSTANCES 0u

/* Reserved datum ids (their low 8 bits). */
#define DCI_INVALIDDATUMID 0xffu
#define DCI_FINALDATA_EVENT 0xf8u
#define DCI_INSTANCEADDED 0xf7u
#define DCI_INSTANCEREMOVED 0xf6u
#define DCI_DATACHANGED 0xf5u

typedef UMAUint4 DCIDatumId;

/* An event datum id as a consumer gives it to dciOpen: 12 bits of flags,
 * 12 bits of event id (the consumer's), 8 bits of datum id. */
#define DCI_EVENTHDR 0x80000000u
#define DCI_EVENTHDRCLASSID 0x40000000u
#define DCI_EVENTHDRINSTANCEID 0x20000000u
#define DCI_EVENTHDRTIMESTAMP 0x10000000u
#define DCI_EVENTHDRVENDORTIMESTAMP 0x08000000u
#define DCI_EVENTHDRCOMPTIMESTAMP 0x04000000u
#define DCI_EVENTHDRSTREAMID 0x02000000u
#define DCI_EVENTHDRDATA 0x01000000u
#define DCI_EVENT_FLAGS_MASK 0xfff00000u
#define dcieventflags(datumId) ((datumId)&DCI_EVENT_FLAGS_MASK)
#define dcieventid(datumId) (((datumId) >> 8) & 0xfffu)
#define dcidatumnumber(datumId) ((datumId)&0xffu)

/* A derived datum's id: the low 8 bits of its arguments' ids, then its
 * own. */
#define dciderivedarg1(datumId) (((datumId) >> 24) & 0xffu)
#define dciderivedarg2(datumId) (((datumId) >> 16) & 0xffu)
#define dciderivedarg3(datumId) (((datumId) >> 8) & 0xffu)

/* DCIClassAttr flags. */
#define DCI_ENABLED 0x01u
#define DCI_NOTIMPLEMENTED 0x02u
#define DCI_NOTAPPLICABLE 0x04u
#define DCI_OBSOLETE 0x08u
#define DCI_PROVIDER_INSTANCE 0x10u
#define DCI_PERSISTENT_CLASS 0x20u
#define DCI_POSSIBLEINVALIDDATA 0x40u

/* DCIDataAttr flags. */
#define DCI_QUERYABLE 0x01u
#define DCI_SETTABLE 0x02u
#define DCI_RESERVABLE 0x04u

/* DCIInstAttr flags. */
#define DCI_PERSISTENT_INSTANCE 0x01u

/* Method types and operations. */
typedef UMAUint4 DCIMethodType;
#define DCI_WAIT 1u
#define DCI_STORE 2u
#define DCI_ADDRESS 3u
#define DCI_CALLBACK 4u
#define DCI_OP_GETDATA 0x01u
#define DCI_OP_CONFIGURE 0x02u
#define DCI_OP_LISTINSTANCES 0x04u
#define DCI_OP_GETINSTATTR 0x08u
#define DCI_OP_SETDATA 0x10u
#define DCI_OP_RESERVEDATA 0x20u
#define DCI_OP_RELEASEDATA 0x40u

/* A class id: size, then (size - 4) / 4 levels. */
typedef struct DCIClassId {
	UMAUint4 size;
	UMAVarLenData data;
} DCIClassId;
#define dciclassidlen(classId) (((classId)->size - 4u) / 4u)
#define dciclassidlevel(classId, i) ((classId)->data[(i)])

/* An instance id: the levels whose inputMask bit is set, in level order,
 * each as many words as its DCIInstLevel says. */
typedef struct DCIInstanceId {
	UMAUint4 size;
	UMAUint4 inputMask;
	UMAUint4 outputMask;
	UMAVarLenData data;
} DCIInstanceId;
#define dciinstanceidwords(instanceId) (((instanceId)->size - 12u) / 4u)

/* A class, an instance and a datum. */
typedef struct DCIMetricId {
	UMAUint4 size;
	UMAVarLenDescr classId;    /* a DCIClassId */
	UMAVarLenDescr instanceId; /* a DCIInstanceId */
	DCIDatumId datumId;
	UMAVarLenData data;
} DCIMetricId;
#define dcimetricclassid(metricId)                                             \
	((const DCIClassId *)((const char *)(metricId) +                       \
	                      (metricId)->classId.offset))
#define dcimetricinstanceid(metricId)                                          \
	((const DCIInstanceId *)((const char *)(metricId) +                    \
	                         (metricId)->instanceId.offset))
/* The next structure of a list of variable-length ones. */
#define dcinext(structure)                                                     \
	((const void *)((const char *)(structure) + (structure)->size))

typedef struct DCIAccess {
	UMAUint4 size;
	UMAVarLenData access;
} DCIAccess;

/* A label: a UMATextString (ascii), then an optional internationalised
 * description (i18n; dcistat puts its datum and class descriptions
 * there, as a UMATextString). */
typedef struct DCILabel {
	UMAUint4 size;
	UMAVarLenDescr ascii;
	UMAElementDescr i18n;
	UMAVarLenData data;
} DCILabel;

typedef struct DCIInstLevel {
	UMADataType type;
	UMAInstTagType itype;
	UMAUint4 size;
} DCIInstLevel;

typedef struct DCIMethod {
	UMAUint4 size;
	DCIMethodType type;
	UMAElementDescr method;
	UMAVarLenData data;
} DCIMethod;

typedef struct DCIDataAttr {
	UMAUint4 size;
	DCIDatumId datumId;
	UMADataType type;
	UMAUnit units;
	UMAUint4 flags;
	UMAUint4 offset; /* in the class data block of one instance */
	UMAVarLenDescr label;
	UMAVarLenData data;
} DCIDataAttr;

typedef struct DCIEventDataAttr {
	UMAUint4 size;
	UMADataType type;
	UMAUnit units;
	UMAUint4 offset; /* in the DCIEvent */
	UMAVarLenDescr label;
	UMAVarLenData data;
} DCIEventDataAttr;

typedef struct DCIEventAttr {
	UMAUint4 size;
	DCIDatumId datumId;
	UMAVarLenDescr label;
	UMAVarArrayDescr eventDataAttr;
	UMAVarLenData data;
} DCIEventAttr;

typedef struct DCIClassAttr {
	UMAUint4 size;
	UMAUint4 flags;
	UMAVarLenDescr access;
	UMAVarLenDescr method;
	UMAVarLenDescr label;
	UMAArrayDescr instLevel;    /* DCIInstLevel */
	UMAVarArrayDescr dataAttr;  /* DCIDataAttr */
	UMAVarArrayDescr eventAttr; /* DCIEventAttr */
	UMAElementDescr extensions;
	UMAVarLenData data;
} DCIClassAttr;

typedef struct DCIInstAttr {
	UMAUint4 size;
	UMAUint4 flags;
	UMAVarLenDescr access;
	UMAElementDescr extension;
	UMAVarLenDescr label;
	UMAVarLenData data;
} DCIInstAttr;

/* An event as dciWaitEvent returns it: the header word (the flags the
 * consumer asked for and the server could give, the event id, and the
 * event's size in bytes, 0xff meaning the size follows in the next word),
 * then, in this order and as the flags say: the DCIClassId, the
 * DCIInstanceId, the UMATimeSpec, and the event data. */
typedef struct DCIEvent {
	UMAUint4 eventHeader;
	UMAVarLenData data;
} DCIEvent;
#define dcieventheadersize(header) ((header)&0xffu)

/* The datums of one instance that have no valid value in the class data
 * block returned with them. */
typedef struct DCIInvalidData {
	UMAUint4 size;
	UMAUint4 count;
	DCIDatumId datumId[];
} DCIInvalidData;
#define dciinvaliddatacount(invalid) ((invalid)->count)
#define dciinvaliddatumid(invalid, i) ((invalid)->datumId[(i)])

/* One element of a DCIReturn: its status, where the (expanded) id it is
 * about is, and where its data is and how long. Offsets are from the
 * DCIReturn's start, or from the data buffer's when the data was asked
 * for apart (dciGetData, dciWaitEvent). */
typedef struct DCIRetval {
	DCIStatus status;
	UMAUint4 metricOffset;
	UMAUint4 dataOffset;
	UMAUint4 dataSize;
} DCIRetval;

typedef struct DCIReturn {
	UMAUint4 size;
	UMAUint4 count;
	DCIStatus sumstatus;
	UMATimeSpec startTime;
	UMATimeSpec endTime;
	DCIRetval retval[1];
} DCIReturn;
/* The bytes before retval[0]. */
#define DCI_RETURN_HEADER_SIZE 28u
#define dcireturnmetric(ret, i)                                                \
	((const void *)((const char *)(ret) + (ret)->retval[(i)].metricOffset))
#define dcireturndata(ret, i)                                                  \
	((const void *)((const char *)(ret) + (ret)->retval[(i)].dataOffset))

/* A connection to the DCI Server. */
typedef struct DCIConnection *DCIHandle;

/*
 * The return buffer arguments (`DCIReturn **returnBuffer, UMAUint4
 * returnBufferSize`): *returnBuffer NULL asks the library to allocate it
 * (free it with dciFree); otherwise the routine writes at most
 * returnBufferSize bytes there. dciGetData and dciWaitEvent can put the
 * data apart: see dciGetData(3).
 */
DCIStatus dciOpen(DCIHandle *handle, const DCIMetricId *eventIdList,
    UMAUint4 eventIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize);
DCIStatus dciClose(DCIHandle handle);
DCIStatus dciListClassId(DCIHandle handle, const DCIClassId *classIdList,
    UMAUint4 classIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize);
DCIStatus dciListInstanceId(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, DCIReturn **returnBuffer,
    UMAUint4 returnBufferSize);
DCIStatus dciGetClassAttributes(DCIHandle handle, const DCIClassId *classIdList,
    UMAUint4 classIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize);
DCIStatus dciGetInstAttributes(DCIHandle handle,
    const DCIMetricId *metricIdList, UMAUint4 metricIdCount,
    DCIReturn **returnBuffer, UMAUint4 returnBufferSize);
DCIStatus dciGetData(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize,
    void **dataBuffer, UMAUint4 *dataBufferSize);
DCIStatus dciWaitEvent(DCIHandle handle, DCIReturn **returnBuffer,
    UMAUint4 returnBufferSize, void **dataBuffer, UMAUint4 *dataBufferSize,
    const UMATimeSpec *timeout);
DCIStatus dciConfigure(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, const void *config, UMAUint4 configSize,
    DCIReturn **returnBuffer, UMAUint4 returnBufferSize);
DCIStatus dciSetData(DCIHandle handle, UMAUint4 operation,
    const DCIMetricId *metricIdList, UMAUint4 metricIdCount, const void *data,
    UMAUint4 dataSize, DCIReturn **returnBuffer, UMAUint4 returnBufferSize);
DCIStatus dciFree(void *buffer);

/*
 * Providers (dciRegister(3)). A provider's classes and instances live in a
 * libdcistat-supplier segment that dcistatd's `suppliers` provider serves,
 * over SNMP and to consumers alike; no DCI Server connection is needed.
 * Class ids are {DCI_PROVIDER_CLASS_ARC, number, relative...}: `number`
 * the application's (the same in every class of one handle), the first
 * relative level DCI_PROVIDER_CLASS_FIRST or more.
 */
typedef struct DCIProvider *DCIProviderHandle;
#define DCI_PROVIDER_CLASS_ARC 3u
#define DCI_PROVIDER_CLASS_FIRST 16u
/* dcistat's DCIDataAttr flag: the datum only grows (wrapping at its
 * width) and is served as a counter; without it an integer is a gauge.
 * A provider sets it; a consumer finds it in the attributes. */
#define DCI_DCISTAT_COUNTER 0x100u
/* dcistat's DCIDataAttr flag on a UMA_TIMESPEC datum: its value is an
 * interval (since boot); without it, a time since the Epoch. Set in the
 * attributes a consumer reads. */
#define DCI_DCISTAT_INTERVAL 0x200u

/* The method data of DCI_ADDRESS in the specification; dcistat does not
 * read it (see dciDatumAddress). */
typedef struct DCIAddressMethodData {
	void *address;
	UMAUint4 size;
	void *sync;
} DCIAddressMethodData;

DCIStatus dciRegister(DCIProviderHandle *handle, const char *providerName,
    const DCIClassId *classId, const DCIClassAttr *classAttr);
DCIStatus dciUnregister(DCIProviderHandle handle, const DCIClassId *classId);
DCIStatus dciAddInstance(DCIProviderHandle handle, const DCIMetricId *metricId,
    const DCIInstAttr *instAttr, const DCIMethod *method, const void *data,
    UMAUint4 dataSize);
DCIStatus dciRemoveInstance(
    DCIProviderHandle handle, const DCIMetricId *metricId);
DCIStatus dciPostData(DCIProviderHandle handle, UMAUint4 operation,
    const DCIReturn *post, const void *dataBuffer, UMAUint4 dataBufferSize);
DCIStatus dciDatumAddress(
    DCIProviderHandle handle, const DCIMetricId *metricId, UMAUint8 **address);
DCIStatus dciPostEvent(DCIProviderHandle handle, const DCIMetricId *eventId,
    const void *data, UMAUint4 dataSize);
DCIStatus dciWaitRequest(DCIProviderHandle handle, UMAUint4 *operation,
    DCIReturn **request, UMAUint4 requestSize, const UMATimeSpec *timeout);

#ifdef __cplusplus
}
#endif

#endif
