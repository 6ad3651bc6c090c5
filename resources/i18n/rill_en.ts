<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
    <context>
        <name>ChatController</name>
        <message numerus="yes">
            <source>%n messages deleted</source>
            <translation>
                <numerusform>%n message deleted</numerusform>
                <numerusform>%n messages deleted</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>The conversation is longer than the model's context: the model no longer sees %n earlier messages. They stay here; Settings chooses what is dropped.</source>
            <translation>
                <numerusform>The conversation is longer than the model's context: the model no longer sees %n earlier message. They stay here; Settings chooses what is dropped.</numerusform>
                <numerusform>The conversation is longer than the model's context: the model no longer sees %n earlier messages. They stay here; Settings chooses what is dropped.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>The conversation is longer than the model's context: the model no longer sees %n earlier messages (from “{first}” to “{last}”). They stay here; Settings chooses what is dropped.</source>
            <translation>
                <numerusform>The conversation is longer than the model's context: the model no longer sees %n earlier message (from “{first}” to “{last}”). They stay here; Settings chooses what is dropped.</numerusform>
                <numerusform>The conversation is longer than the model's context: the model no longer sees %n earlier messages (from “{first}” to “{last}”). They stay here; Settings chooses what is dropped.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ChatView</name>
        <message numerus="yes">
            <source>Thinking… · ~%n words</source>
            <translation>
                <numerusform>Thinking… · ~%n word</numerusform>
                <numerusform>Thinking… · ~%n words</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Thinking… · %n words</source>
            <translation>
                <numerusform>Thinking… · %n word</numerusform>
                <numerusform>Thinking… · %n words</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Thought for ~%n words</source>
            <translation>
                <numerusform>Thought for ~%n word</numerusform>
                <numerusform>Thought for ~%n words</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Thought for %n words</source>
            <translation>
                <numerusform>Thought for %n word</numerusform>
                <numerusform>Thought for %n words</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>CrashGuard</name>
        <message numerus="yes">
            <source>This has happened %n times since this message appeared.</source>
            <translation>
                <numerusform>This has happened %n time since this message appeared.</numerusform>
                <numerusform>This has happened %n times since this message appeared.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>FileChip</name>
        <message numerus="yes">
            <source>%n page(s)</source>
            <translation>
                <numerusform>%n page</numerusform>
                <numerusform>%n pages</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message numerus="yes">
            <source>%n match(es)…</source>
            <translation>
                <numerusform>%n match…</numerusform>
                <numerusform>%n matches…</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n match</numerusform>
                <numerusform>%n matches</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>Opening {name}… (%n more added to Model › Manage Models…)</source>
            <translation>
                <numerusform>Opening {name}… (%n more added to Model › Manage Models…)</numerusform>
                <numerusform>Opening {name}… (%n more added to Model › Manage Models…)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n threads</source>
            <translation>
                <numerusform>%n thread</numerusform>
                <numerusform>%n threads</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SearchDialog</name>
        <message numerus="yes">
            <source>The %n newest matches</source>
            <translation>
                <numerusform>The %n newest match</numerusform>
                <numerusform>The %n newest matches</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n matches</source>
            <translation>
                <numerusform>%n match</numerusform>
                <numerusform>%n matches</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>StreamAnnouncer</name>
        <message numerus="yes">
            <source>Still writing: %n token(s) so far.</source>
            <translation>
                <numerusform>Still writing: %n token so far.</numerusform>
                <numerusform>Still writing: %n tokens so far.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Reply finished: %n token(s).</source>
            <translation>
                <numerusform>Reply finished: %n token.</numerusform>
                <numerusform>Reply finished: %n tokens.</numerusform>
            </translation>
        </message>
    </context>
</TS>
