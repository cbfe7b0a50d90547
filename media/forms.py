from django import forms

from media.models import Scene


class VideoImportForm(forms.Form):
    scene = forms.ModelChoiceField(queryset=Scene.objects.all())
    file = forms.FileField(
        help_text="MP4/MOV, Matroska/WebM or AVI; what it is is decided by "
        "probing it, not by its name"
    )
    title = forms.CharField(max_length=255, required=False, help_text="Defaults to the file name")
