/*
 * The varbinds of one AgentX Get or GetNext PDU answered across all the
 * tables, as Net-SNMP's agent would answer them through the registered
 * handlers: GET exceptions noSuchObject / noSuchInstance; a GetNext varbind
 * is a SearchRange (RFC 2741, 5.2: start name, end in the value,
 * ASN_PRIV_INCL_RANGE or ASN_PRIV_EXCL_RANGE) and becomes the next name and
 * value across the tables before the end, or keeps its start with
 * endOfMibView.
 *
 * This is what the in-place AgentX path (agent/agentx_direct.h) and the
 * request fuzzer run; every name and end is bounded and normalised by
 * agent/request_name.h before any comparison.
 */
#ifndef DCISTAT_AGENT_AGENTX_ANSWER_H
#define DCISTAT_AGENT_AGENTX_ANSWER_H

#include <stdbool.h>

#include "agent/tables.h"

/* Answers the varbinds of a PDU Net-SNMP parsed: the SearchRange's end in
 * each varbind's value. */
void agent_agentx_answer(
    struct agent_tables *tables, bool next, netsnmp_variable_list *varbinds);

/* The same one varbind at a time, for a PDU read without Net-SNMP
 * (agent/agentx_decode.h): agent_agentx_answer_begin once per request,
 * then each varbind named by its start with the range's include flag and
 * end (NULL, 0.0 or empty: none). */
void agent_agentx_answer_begin(struct agent_tables *tables);
void agent_agentx_answer_range(struct agent_tables *tables, bool next,
    netsnmp_variable_list *varbind, bool include, const oid *end,
    size_t end_length);

#endif
